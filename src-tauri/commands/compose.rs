//! The compose preview: exactly what `ambry compose` gives an agent in a project, at both
//! moments — a new context (anchors and the memory map, with a prompt's bodies) and a later turn
//! of a chosen session (only what it would add) — recorded nowhere; the sessions the ledger has
//! composed for (to pick one whose transcript is not indexed); and the person's own
//! retrieval cases (`ambry memory test`) run and kept from there.

use ambry_core::Composition;
use ambry_core::ContextRequest;
use ambry_core::LedgerSession;
use ambry_core::{CaseSpec, CasesReport};
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[tauri::command]
pub async fn compose_preview(
    app: AppHandle,
    prompt: String,
    project: Option<String>,
    session: Option<String>,
) -> IpcResult<Composition> {
    off_main(app, move |ws| {
        let request = ContextRequest::query(&prompt, session.as_deref().filter(|s| !s.is_empty()));
        Ok(ws.compose_preview(project.as_deref(), &request, chrono::Utc::now())?)
    })
    .await
}

/// The sessions the injection ledger has composed for, newest first: the compose preview's
/// later turn can be previewed for each, whether or not its transcript is indexed.
#[tauri::command]
pub async fn ledger_sessions(
    app: AppHandle,
    limit: Option<usize>,
) -> IpcResult<Vec<LedgerSession>> {
    off_main(app, move |ws| Ok(ws.ledger_sessions(limit.unwrap_or(50))?)).await
}

/// Every case of the user scope and, with `project`, that project's; `None` when there are none.
#[tauri::command]
pub async fn memory_tests(
    app: AppHandle,
    project: Option<String>,
) -> IpcResult<Option<CasesReport>> {
    off_main(app, move |ws| Ok(ws.memory_tests_for(project.as_deref())?)).await
}

/// Keeps a prompt and the memories it must bring in as a case; returns the file it went to.
#[tauri::command]
pub async fn save_memory_test(
    app: AppHandle,
    project: Option<String>,
    prompt: String,
    expect: Vec<String>,
    reject: Option<Vec<String>>,
    within: Option<usize>,
) -> IpcResult<String> {
    off_main(app, move |ws| {
        let file = ws.add_memory_test(
            project.as_deref(),
            CaseSpec {
                prompt,
                expect,
                reject: reject.unwrap_or_default(),
                within,
            },
        )?;
        Ok(file.display().to_string())
    })
    .await
}

/// Which case of which scope's `tests.toml` (as the report listed it: its place and prompt).
#[derive(Debug, serde::Deserialize, ts_rs::TS)]
pub struct CaseRef {
    scope: ambry_core::Scope,
    index: usize,
    prompt: String,
}

/// Changes one case (it may move to the scope its memories need); returns the file holding it.
#[tauri::command]
pub async fn edit_memory_test(
    app: AppHandle,
    project: Option<String>,
    case: CaseRef,
    spec: CaseSpec,
) -> IpcResult<String> {
    off_main(app, move |ws| {
        let file = ws.edit_memory_test(
            project.as_deref(),
            case.scope,
            case.index,
            &case.prompt,
            spec,
        )?;
        Ok(file.display().to_string())
    })
    .await
}

/// Removes one case.
#[tauri::command]
pub async fn delete_memory_test(
    app: AppHandle,
    project: Option<String>,
    case: CaseRef,
) -> IpcResult<String> {
    off_main(app, move |ws| {
        let file =
            ws.remove_memory_test(project.as_deref(), case.scope, case.index, &case.prompt)?;
        Ok(file.display().to_string())
    })
    .await
}
