//! End-to-end tests of the real desktop app: the real WebKit window driven through WebDriver
//! (tauri-driver + WebKitWebDriver) under Xvfb, on throwaway homes seeded through the store and
//! the real `ambry` binary. Run with `scripts/e2e.sh`.

#[macro_use]
mod harness;
mod keys;
mod seed;
mod ui;

mod agent_stop;
mod agents;
mod annotate;
mod browse;
mod compose;
mod delete;
mod distill;
mod edit;
mod editor;
mod first_run;
mod focus;
mod honest_status;
mod installed;
mod instructions;
mod journeys;
mod keyboard;
mod layout;
mod live;
mod memory_sort;
mod multi_select;
mod needs_when;
mod overlays;
mod palette;
mod palette_places;
mod purge;
mod reindex;
mod relevance;
mod rename;
mod review;
mod review_actions;
mod review_ask;
mod rules;
mod search;
mod session_actions;
mod session_runs;
mod sessions;
mod settings;
mod settings_file;
mod shutdown;
mod small_form;
mod small_things;
mod small_transcript;
mod smoke;
mod sync;
mod toasts;
mod transcript_fidelity;
mod tray;
mod type_picker;
mod unsaved;
mod vault;
