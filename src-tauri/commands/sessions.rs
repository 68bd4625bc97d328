//! The Sessions view: recall over past agent transcripts, the recent sessions, one transcript.
//! The index is kept current by the session watcher (see `events`); these only read it.

use ambry_core::{group_runs, RecallHit, RecallQuery, SessionGroup, SourceKind, Transcript};
use serde::Serialize;
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct SessionsOverview {
    pub sessions: u64,
    pub messages: u64,
    pub newest: Option<String>,
    /// The sources switched on in config.
    pub sources: Vec<SourceKind>,
}

#[tauri::command]
pub async fn sessions_overview(app: AppHandle) -> IpcResult<SessionsOverview> {
    off_main(app, |ws| {
        let stats = ws.session_stats()?;
        Ok(SessionsOverview {
            sessions: stats.sessions,
            messages: stats.messages,
            newest: stats.newest,
            sources: ws.config()?.sessions.sources,
        })
    })
    .await
}

/// `ambry recall`: `project` limits hits to sessions that ran inside it.
#[tauri::command]
pub async fn recall_sessions(
    app: AppHandle,
    query: String,
    source: Option<SourceKind>,
    project: Option<String>,
    folder: Option<String>,
    limit: Option<usize>,
) -> IpcResult<Vec<RecallHit>> {
    off_main(app, move |ws| {
        let mut q = RecallQuery::new(query);
        q.limit = limit.unwrap_or(50);
        q.source = source;
        if let Some(slug) = project {
            q.cwd_prefix = ws.project_root(&slug)?;
        } else if let Some(folder) = folder {
            // A folder sessions ran in that is no Ambry project (e.g. one only Claude Code knows).
            q.cwd_prefix = Some(folder.into());
        }
        // The watcher keeps the index current; recall here never indexes first.
        Ok(ws.recall(&q, false, chrono::Utc::now())?.0)
    })
    .await
}

/// Recent sessions, each with its subagent and compaction runs folded under it.
#[tauri::command]
pub async fn list_sessions(
    app: AppHandle,
    source: Option<SourceKind>,
    limit: Option<usize>,
) -> IpcResult<Vec<SessionGroup>> {
    off_main(app, move |ws| {
        Ok(group_runs(ws.sessions(source, limit.unwrap_or(200))?))
    })
    .await
}

#[tauri::command]
pub async fn session_transcript(app: AppHandle, session_id: String) -> IpcResult<Transcript> {
    off_main(app, move |ws| Ok(ws.transcript(&session_id)?)).await
}
