//! Reindex from the toolbar or the tray: embeddings of every scope, then the session index,
//! off the main thread, with progress events.

use std::sync::atomic::Ordering;

use engram_core::embed::{reindex_files, shared_embedder, ReindexProgress, ReindexReport};
use engram_core::memory::{ScopeFilter, Store};
use engram_core::project;
use engram_core::sessions::{IndexProgress, IndexSummary, SessionIndex};
use serde::Serialize;
use tauri::{AppHandle, Manager};

use crate::events;
use crate::ipc_error::IpcError;
use crate::state::AppState;

#[derive(Debug, Clone, Serialize)]
pub struct ReindexSummary {
    pub embeddings: Result<ReindexReport, IpcError>,
    pub sessions: Result<IndexSummary, IpcError>,
}

/// Starts a reindex unless one is running; returns whether it started. Progress arrives as
/// `reindex-progress` events and the result as `reindex-finished`.
#[tauri::command]
pub fn start_reindex(app: AppHandle) -> bool {
    let state = app.state::<AppState>();
    if state.reindexing.swap(true, Ordering::SeqCst) {
        return false;
    }
    let worker = app.clone();
    std::thread::spawn(move || {
        let state = worker.state::<AppState>();
        // Whatever happens inside, the window must hear that the run ended, or its progress bar
        // would spin forever and Reindex stay disabled until a restart.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ReindexSummary {
            embeddings: reindex_embeddings(&worker, &state),
            sessions: reindex_sessions(&worker, &state),
        }));
        state.reindexing.store(false, Ordering::SeqCst);
        // New sidecars were written: searches must not keep "no vector" for them.
        state.memories_written();
        let summary = outcome.unwrap_or_else(|_| {
            tracing::error!("reindex stopped by a panic");
            let stopped = IpcError::new("internal", "reindex stopped unexpectedly; nothing was lost, try again");
            ReindexSummary { embeddings: Err(stopped.clone()), sessions: Err(stopped) }
        });
        events::reindex_finished(&worker, &summary);
    });
    true
}

#[tauri::command]
pub fn reindex_running(app: AppHandle) -> bool {
    app.state::<AppState>().reindexing.load(Ordering::SeqCst)
}

fn reindex_embeddings(app: &AppHandle, state: &AppState) -> Result<ReindexReport, IpcError> {
    let config = state.config()?;
    events::reindex_progress(app, "embeddings", 0, 0);
    let embedder = shared_embedder(&state.model_paths(&config))?;
    let mut embedder = embedder.lock().map_err(|_| IpcError::new("model_crashed", "the embedding model crashed earlier; restart the app"))?;
    let mut files = Store::new(state.home.clone(), None).list(ScopeFilter::User)?;
    for known in project::known_projects(&state.home)? {
        files.extend(Store::new(state.home.clone(), Some(known.to_project())).list(ScopeFilter::Project)?);
    }
    let mut progress = |p: ReindexProgress| events::reindex_progress(app, "embeddings", p.done, p.total);
    Ok(reindex_files(files, &mut *embedder, &mut progress)?)
}

fn reindex_sessions(app: &AppHandle, state: &AppState) -> Result<IndexSummary, IpcError> {
    let config = state.config()?;
    events::reindex_progress(app, "sessions", 0, 0);
    let mut index = SessionIndex::open(&state.home.index_db())?;
    let mut progress = |p: IndexProgress| events::reindex_progress(app, "sessions", p.done as usize, p.total as usize);
    Ok(index.index(&state.session_roots(), &config.sessions, None, &mut progress)?)
}
