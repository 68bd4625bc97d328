//! Reindex from the toolbar or the tray: core's reindex of everything (every scope's vectors,
//! then the session index), off the main thread, with progress events.

use ambry_core::report;
use ambry_core::FrontEndCode;
use ambry_core::{ReindexPhase, ReindexSummary};
use tauri::{AppHandle, Manager};

use crate::events;
use crate::state::AppState;

/// Starts a reindex unless one is running; returns whether it started. Progress arrives as
/// `reindex-progress` events and the result as `reindex-finished`.
#[tauri::command]
pub fn start_reindex(app: AppHandle) -> bool {
    let ws = app.state::<AppState>().workspace.clone();
    if ws.reindex_running() {
        return false;
    }
    std::thread::spawn(move || {
        let mut progress = |phase: ReindexPhase, done: usize, total: usize| {
            events::reindex_progress(&app, phase, done, total)
        };
        // Whatever happens inside, the window must hear that the run ended, or its progress bar
        // would spin forever and Reindex stay disabled until a restart.
        let summary = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ws.reindex(None, chrono::Utc::now(), &mut progress)
        })) {
            Ok(Ok(summary)) => summary,
            Ok(Err(e)) => ReindexSummary {
                embeddings: Err(report(&e)),
                sessions: Err(report(&e)),
                session_vectors: Err(report(&e)),
            },
            Err(_) => {
                tracing::error!("reindex stopped by a panic");
                let stopped = FrontEndCode::Internal
                    .report("reindex stopped unexpectedly; nothing was lost, try again");
                ReindexSummary {
                    embeddings: Err(stopped.clone()),
                    session_vectors: Err(stopped.clone()),
                    sessions: Err(stopped),
                }
            }
        };
        events::reindex_finished(&app, &summary);
    });
    true
}

#[tauri::command]
pub fn reindex_running(app: AppHandle) -> bool {
    app.state::<AppState>().workspace.reindex_running()
}
