//! Frontend event names and payloads; the only place core changes become UI events.
//!
//! Owns: `memory-changed` and `session-changed` (from the core watchers; a change reaches the
//! workspace's caches before the window hears of it, so a search the window runs in answer
//! already sees it), `reindex-progress`,
//! `reindex-finished`, and `tray-action` (a tray menu item the window must act on).
//! Deliberately does not: decide what changed; the core watcher does.

use ambry_core::{MemoryChange, SessionChange};
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager};

use crate::state::AppState;

pub const MEMORY_CHANGED: &str = "memory-changed";
pub const SESSION_CHANGED: &str = "session-changed";
pub const REINDEX_PROGRESS: &str = "reindex-progress";
pub const REINDEX_FINISHED: &str = "reindex-finished";
pub const TRAY_ACTION: &str = "tray-action";
pub const SYNC_FINISHED: &str = "sync-finished";

/// A burst of file events (an agent saving several memories, a reindex writing vectors) within
/// this window is one redraw.
const REDRAW_DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(150);

/// Starts the core watcher on the home directory and forwards its changes to the window.
pub fn watch_memories(app: &AppHandle) {
    let state = app.state::<AppState>();
    let emitter = app.clone();
    // Sidecars too: an open search re-ranks when a saved memory's vector lands (it is
    // written just after the .md), so the refreshed ranking is the one a retyped query gets.
    let forward = move |change: MemoryChange| {
        // A memory written here is sent by the automatic sync once changes settle.
        if matches!(
            change,
            MemoryChange::Saved { .. } | MemoryChange::Removed { .. }
        ) {
            if let Ok(auto) = emitter.state::<AppState>().auto_sync.lock() {
                if let Some(auto) = auto.as_ref() {
                    auto.changed();
                }
            }
        }
        let _ = emitter.emit(MEMORY_CHANGED, &change);
    };
    match state.workspace.watch_memories(REDRAW_DEBOUNCE, forward) {
        Ok(watcher) => {
            if let Ok(mut slot) = state.watcher.lock() {
                *slot = Some(watcher);
            }
        }
        Err(e) => tracing::warn!("{e}; live updates are off"),
    }
}

/// Starts the core session watcher (indexes new transcript lines within a second of a write).
pub fn watch_sessions(app: &AppHandle) {
    let state = app.state::<AppState>();
    let emitter = app.clone();
    let forward = move |change: SessionChange| {
        let _ = emitter.emit(SESSION_CHANGED, &change);
    };
    match state
        .workspace
        .watch_sessions(|| chrono::Utc::now().timestamp(), forward)
    {
        Ok(watcher) => {
            if let Ok(mut slot) = state.session_watcher.lock() {
                *slot = Some(watcher);
            }
        }
        Err(e) => tracing::warn!("session watcher not started: {e}"),
    }
}

#[derive(Clone, Serialize)]
struct Progress {
    phase: ambry_core::ReindexPhase,
    done: usize,
    total: usize,
}

pub fn reindex_progress(
    app: &AppHandle,
    phase: ambry_core::ReindexPhase,
    done: usize,
    total: usize,
) {
    let _ = app.emit(REINDEX_PROGRESS, Progress { phase, done, total });
}

pub fn reindex_finished<T: Serialize + Clone>(app: &AppHandle, summary: &T) {
    let _ = app.emit(REINDEX_FINISHED, summary.clone());
}

pub fn tray_action(app: &AppHandle, action: &str) {
    let _ = app.emit(TRAY_ACTION, action);
}

/// Starts personal sync's automatic runs; each outcome reaches the window as `sync-finished`
/// (the status line reads where sync stands again).
pub fn start_auto_sync(app: &AppHandle) {
    let state = app.state::<AppState>();
    let emitter = app.clone();
    let auto = state
        .workspace
        .start_auto_sync(ambry_core::AUTO_SYNC_SETTLE, move |outcome| {
            if let Err(e) = &outcome {
                tracing::info!("automatic sync: {e}");
            }
            let _ = emitter.emit(SYNC_FINISHED, outcome.is_ok());
        });
    let mut slot = state.auto_sync.lock().unwrap_or_else(|p| p.into_inner());
    *slot = Some(auto);
}
