//! The Ambry desktop shell: window, tray and IPC commands as thin adapters over ambry-core.
//!
//! Owns: Tauri setup, managed state, mapping core results and watcher changes to IPC and events.
//! Deliberately does not: hold any rule about memories, ranking or sessions.

mod commands;
mod editor_launch;
mod events;
#[cfg(test)]
mod ipc_contract;
mod ipc_error;
mod rendering;
mod shutdown;
mod state;
mod tray;

use ambry_core::{LaunchEnv, Workspace};
use tauri::Manager;

use state::AppState;

pub fn run() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .try_init();
    // Before anything starts a thread or makes the window (it may set an environment variable).
    rendering::choose_for_this_machine();
    let workspace = match Workspace::open(None, LaunchEnv::from_process()) {
        Ok(ws) => ws,
        Err(e) => {
            eprintln!("ambry: {e}");
            std::process::exit(1);
        }
    };

    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_clipboard_manager::init())
        .manage(AppState::new(workspace))
        .manage(shutdown::ComposeServiceSlot::default())
        .setup(|app| {
            let handle = app.handle().clone();
            shutdown::exit_on_termination_signals(&handle);
            events::watch_memories(&handle);
            events::watch_sessions(&handle);
            tray::install(&handle);
            // Started at login (`--tray`): only the tray icon until the person opens the window.
            if std::env::args().any(|a| a == ambry_core::TRAY_FLAG) {
                if let Some(window) = app.get_webview_window("main") {
                    let _ = window.hide();
                }
            }
            after_first_paint(handle);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::memories::list_memories,
            commands::memories::get_memory,
            commands::memories::save_memory,
            commands::memories::test_rule,
            commands::memories::backtest_rule,
            commands::memories::forget_memory,
            commands::memories::forget_memories,
            commands::memories::restore_memories,
            commands::memories::rename_memory,
            commands::memories::render_markdown,
            commands::memories::open_in_editor,
            commands::memories::reveal_in_folder,
            commands::memories::open_link,
            commands::search::search_memories,
            commands::compose::compose_preview,
            commands::compose::ledger_sessions,
            commands::compose::memory_tests,
            commands::compose::save_memory_test,
            commands::compose::edit_memory_test,
            commands::compose::delete_memory_test,
            commands::archive::list_versions,
            commands::archive::version_diff,
            commands::archive::restore_version,
            commands::archive::prune_archive,
            commands::archive::leaked_secrets,
            commands::archive::purge_version,
            commands::anchors::get_anchor,
            commands::anchors::init_anchor,
            commands::anchors::save_anchor,
            commands::instructions::instruction_files,
            commands::instructions::get_instruction,
            commands::instructions::save_instruction,
            commands::instructions::open_instruction_in_editor,
            commands::projects::list_projects,
            commands::projects::trust_team,
            commands::projects::add_project,
            commands::settings::get_settings,
            commands::settings::first_paint_done,
            commands::settings::get_autostart,
            commands::settings::set_autostart,
            commands::settings::open_config,
            commands::settings::set_setting,
            commands::settings::list_settings,
            commands::agents::agent_connections,
            commands::agents::change_agent_connection,
            commands::reindex::start_reindex,
            commands::reindex::reindex_running,
            commands::review::review_findings,
            commands::sync::sync_status,
            commands::sync::sync_now,
            commands::sync::sync_keep,
            commands::sync::sync_use_other,
            commands::review::review_keep,
            commands::review::review_when,
            commands::review::review_rule,
            commands::review::review_set_rule,
            commands::review::review_team_seen,
            commands::review::review_supersede,
            commands::review::review_merge,
            commands::review::review_ask,
            commands::review::review_merge_draft,
            commands::review::review_undo,
            commands::review::compare_texts,
            commands::sessions::sessions_overview,
            commands::sessions::recall_sessions,
            commands::sessions::list_sessions,
            commands::sessions::session_transcript,
            commands::sessions::session_injections,
            commands::sessions::session_tool_checks,
            commands::sessions::save_passage,
            commands::sessions::prune_session,
            commands::distill::distill_session,
            commands::distill::distill_project,
            commands::distill::distill_annotate,
            commands::distill::agent_run_stop,
            commands::distill::review_proposals,
            commands::distill::accept_proposal,
            commands::distill::reject_proposal,
        ])
        .build(tauri::generate_context!())
        .expect("error while building Ambry")
        .run(|app, event| {
            if let tauri::RunEvent::Exit = event {
                shutdown::stop_compose_service(app);
            }
        });
}

/// Work that would compete with the first paint for the CPU (two cores here) starts once the
/// window has shown its first view: the compose service (whose warm-up reads the user's
/// memories) and the timer that releases an idle model. The model itself loads on the first
/// semantic search or compose, so an app nobody searches in stays small.
fn after_first_paint(app: tauri::AppHandle) {
    std::thread::spawn(move || {
        let state = app.state::<AppState>();
        state.wait_for_first_paint(std::time::Duration::from_secs(5));
        serve_compose(&app);
        events::start_auto_sync(&app);
        ambry_core::release_idle_model_in_background(state.workspace.env().model_idle);
    });
}

/// Answers `ambry compose` from agents over the home's socket while the window is open, so a
/// turn does not pay for loading the embedding model; through the window's own workspace, so
/// both share one corpus, one vector cache and one model. Another server on the same home (an
/// `ambry serve`) already does that job: the app then leaves it be.
fn serve_compose(app: &tauri::AppHandle) {
    let state = app.state::<AppState>();
    app.state::<shutdown::ComposeServiceSlot>()
        .start(|| ambry_core::spawn_compose_service(state.workspace.clone()));
}
