//! The one core façade every front end uses: the operations the app, the CLI, the compose
//! service and the MCP server share, on temporary homes.

use crate::support;

use std::path::Path;
use std::sync::Arc;

use ambry_core::{AmbryHome, ErrorCode, LaunchEnv, Workspace};
use ambry_core::{Coverage, SearchOptions};
use ambry_store::memory::{MemoryDraft, Scope, ScopeFilter};
use chrono::{DateTime, TimeZone, Utc};

mod memories;
mod needs_when;
mod resume;
mod rules;
mod search;
mod sessions;
mod setup;
mod team;
mod turns;

/// A fixed clock: the store's timestamps come from here, never from sleeping.
fn at(second: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, second).unwrap()
}

fn draft(name: &str, description: &str, body: &str) -> MemoryDraft {
    MemoryDraft {
        name: name.into(),
        kind: "project".into(),
        description: description.into(),
        body: body.into(),
        tags: vec![],
    }
}

fn repo(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    assert!(std::process::Command::new("git")
        .arg("init")
        .arg("-q")
        .arg(dir)
        .status()
        .unwrap()
        .success());
    dir.to_path_buf()
}

/// A prompt of `session` as Claude Code's hook sends it (recorded in the ledger).
fn turn(session: &str, prompt: &str) -> ambry_core::ContextRequest {
    ambry_core::ContextRequest {
        event: ambry_core::ContextEvent::Turn,
        prompt: prompt.into(),
        source: None,
        session_id: Some(session.into()),
        agent: Some("claude".into()),
        record: true,
        transcript: None,
    }
}

/// A context of `session` begins (`SessionStart` with `source`), as Claude Code's hook sends it.
fn session_start(session: &str, source: &str) -> ambry_core::ContextRequest {
    ambry_core::ContextRequest {
        event: ambry_core::ContextEvent::SessionStart,
        prompt: String::new(),
        source: Some(source.into()),
        session_id: Some(session.into()),
        agent: Some("claude".into()),
        record: true,
        transcript: None,
    }
}

/// A workspace with no model and a fresh git repository: the temporary directory (kept alive
/// by the caller), the workspace, the repository and the store an agent there gets.
fn in_a_repository() -> (
    tempfile::TempDir,
    Arc<Workspace>,
    std::path::PathBuf,
    ambry_core::Place,
) {
    let tmp = tempfile::tempdir().unwrap();
    let ws = workspace(&tmp.path().join("home"), &tmp.path().join("no-models"));
    let project = repo(&tmp.path().join("repo"));
    let store = ws.place_at(&project);
    (tmp, ws, project, store)
}

fn workspace(home: &Path, models: &Path) -> Arc<Workspace> {
    Workspace::with_models(AmbryHome::new(home), models)
}
