//! The Sessions view: recall over past agent transcripts, the recent sessions, one transcript.
//! The index is kept current by the session watcher (see `events`); these only read it.

use ambry_core::{
    group_runs, Injection, MemoryDraft, ReaderRecall, RecallQuery, SavedWithVector, SessionGroup,
    SourceKind, Transcript, VaultedFile,
};
use serde::Serialize;
use tauri::AppHandle;

use crate::commands::Location;
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

/// `ambry recall`: `project` limits hits to sessions that ran inside it. Answered by words
/// while the model would first load unless `wait_for_model` (see `recall_for_reader`).
#[tauri::command]
#[allow(clippy::too_many_arguments)]
pub async fn recall_sessions(
    app: AppHandle,
    query: String,
    source: Option<SourceKind>,
    project: Option<String>,
    folder: Option<String>,
    limit: Option<usize>,
    wait_for_model: Option<bool>,
    by_words: Option<bool>,
) -> IpcResult<ReaderRecall> {
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
        if by_words == Some(true) {
            return Ok(ws.recall_by_words(&q)?);
        }
        Ok(ws.recall_for_reader(&q, wait_for_model.unwrap_or(false))?)
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

/// What Ambry injected into a session (the injection ledger).
#[tauri::command]
pub async fn session_injections(app: AppHandle, session_id: String) -> IpcResult<Vec<Injection>> {
    off_main(app, move |ws| Ok(ws.session_injections(&session_id)?)).await
}

/// The tool calls of a session that memories' rules denied or reminded (DESIGN §16).
#[tauri::command]
pub async fn session_tool_checks(
    app: AppHandle,
    session_id: String,
) -> IpcResult<Vec<ambry_core::ToolCheckRecord>> {
    off_main(app, move |ws| Ok(ws.tool_checks(Some(&session_id))?)).await
}

/// A passage of a session kept as a new memory whose `source:` names the session.
#[tauri::command]
pub async fn save_passage(
    app: AppHandle,
    location: Location,
    session_id: String,
    draft: MemoryDraft,
) -> IpcResult<SavedWithVector> {
    off_main(app, move |ws| {
        let place = ws.place_of(location.project_slug())?;
        Ok(ws.save_passage(
            &place,
            location.scope,
            draft,
            &session_id,
            chrono::Utc::now(),
        )?)
    })
    .await
}

/// Removes a session whose transcript file was deleted from the index.
#[tauri::command]
pub async fn prune_session(app: AppHandle, session_id: String) -> IpcResult<VaultedFile> {
    off_main(app, move |ws| Ok(ws.prune_vaulted_session(&session_id)?)).await
}
