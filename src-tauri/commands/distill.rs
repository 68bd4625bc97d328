//! Distill from the app: the person's own agent proposes memories from one session or one
//! project's sessions (a dry run first shows calls and tokens), and the proposals' accept and
//! reject. The Review view lists proposals through `review_proposals`.
//!
//! `distill_annotate`: the agent proposes `when` phrases for memories without them.
//!
//! Owns: the IPC shapes of those six commands. Deliberately does not: hold rules (core's
//! workspace does) or show anything.

use ambry_core::AnnotateReport;
use ambry_core::DistillAgent;
use ambry_core::SavedWithVector;
use ambry_core::Selection;
use ambry_core::Workspace;
use ambry_core::{DistillReport, Edits, Proposal};
use chrono::NaiveDate;
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::{off_main, off_main_stoppable};

/// The agent a command names (`claude` or `codex`); anything else: the configured one.
pub(crate) fn agent(name: Option<String>) -> Option<DistillAgent> {
    match name.as_deref() {
        Some("codex") => Some(DistillAgent::Codex),
        Some("claude") => Some(DistillAgent::Claude),
        _ => None,
    }
}

/// Distills one session into the view it ran in.
#[tauri::command]
pub async fn distill_session(
    app: AppHandle,
    session: String,
    with: Option<String>,
    dry_run: bool,
    run: Option<String>,
) -> IpcResult<DistillReport> {
    distill_in(app, run, with, dry_run, move |ws| {
        let place = ws.place_of_session(&session)?;
        let selection = Selection {
            session: Some(session),
            ..Selection::default()
        };
        Ok((place, selection))
    })
    .await
}

/// Distills a known project's sessions (from `since`, `YYYY-MM-DD`, when given).
#[tauri::command]
pub async fn distill_project(
    app: AppHandle,
    project: String,
    since: Option<NaiveDate>,
    with: Option<String>,
    dry_run: bool,
    run: Option<String>,
) -> IpcResult<DistillReport> {
    distill_in(app, run, with, dry_run, move |ws| {
        let selection = Selection {
            session: None,
            since,
            project: true,
        };
        Ok((ws.place_of(Some(&project))?, selection))
    })
    .await
}

/// One distill run of the person's agent over what `chosen` picks (the view and the
/// sessions), stoppable by the name `run`.
async fn distill_in(
    app: AppHandle,
    run: Option<String>,
    with: Option<String>,
    dry_run: bool,
    chosen: impl FnOnce(&Workspace) -> IpcResult<(ambry_core::Place, Selection)> + Send + 'static,
) -> IpcResult<DistillReport> {
    off_main_stoppable(app, run, move |ws, stop| {
        let (place, selection) = chosen(ws)?;
        Ok(ws.distill_stoppable(
            &place,
            &selection,
            agent(with),
            dry_run,
            chrono::Utc::now(),
            stop,
        )?)
    })
    .await
}

/// The person's own agent proposes `when` phrases for the view's memories without them (the
/// user scope and, with `project`, that project's); `dry_run` says what would be sent and its
/// size and sends nothing. Each answer waits in the review as a proposal.
#[tauri::command]
pub async fn distill_annotate(
    app: AppHandle,
    project: Option<String>,
    with: Option<String>,
    dry_run: bool,
    run: Option<String>,
) -> IpcResult<AnnotateReport> {
    off_main_stoppable(app, run, move |ws, stop| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.distill_annotate(&place, agent(with), dry_run, chrono::Utc::now(), stop)?)
    })
    .await
}

/// The pending proposals of the user scope and, with `project`, that project's.
#[tauri::command]
pub async fn review_proposals(app: AppHandle, project: Option<String>) -> IpcResult<Vec<Proposal>> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.proposals(&place)?)
    })
    .await
}

/// Accepts a proposal (with the person's edits, if any) into its view.
#[tauri::command]
pub async fn accept_proposal(
    app: AppHandle,
    project: Option<String>,
    id: String,
    edits: Option<Edits>,
) -> IpcResult<SavedWithVector> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.accept_proposal(&place, &id, &edits.unwrap_or_default(), chrono::Utc::now())?)
    })
    .await
}

/// Rejects a proposal: it leaves the inbox, no memory is touched.
#[tauri::command]
pub async fn reject_proposal(app: AppHandle, id: String) -> IpcResult<Proposal> {
    off_main(app, move |ws| {
        Ok(ws.reject_proposal(&id, chrono::Utc::now())?)
    })
    .await
}

/// Stops the run of the person's agent the UI named `run` when it started it (distill, annotate,
/// ask), or every run going now without one: the agent's whole process group is killed, the run
/// ends with `stopped` and keeps nothing. How many were stopped.
#[tauri::command]
pub async fn agent_run_stop(app: AppHandle, run: Option<String>) -> IpcResult<usize> {
    use tauri::Manager;
    Ok(app
        .state::<crate::state::AppState>()
        .agent_runs
        .stop(run.as_deref()))
}
