//! Trust anchors: USER.md and a project's `.ambry/AMBRY.md` — view, create from the skeleton,
//! edit.

use ambry_core::{markdown_to_safe_html, AnchorKind, AnchorOf, Workspace};
use serde::Serialize;
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct AnchorView {
    pub kind: AnchorKind,
    pub project: Option<String>,
    /// Shown to the person; never accepted back.
    pub path: String,
    pub exists: bool,
    pub text: String,
    pub html: String,
    /// Still exactly the skeleton `init` wrote (compose leaves it out).
    pub untouched: bool,
}

fn view(ws: &Workspace, project: Option<String>) -> IpcResult<AnchorView> {
    let anchor = ws.anchor(AnchorOf::known(project.as_deref()))?;
    let untouched = anchor.untouched();
    let exists = anchor.text.is_some();
    let text = anchor.text.unwrap_or_default();
    Ok(AnchorView {
        kind: anchor.kind,
        project,
        path: anchor.path.display().to_string(),
        exists,
        html: markdown_to_safe_html(&text),
        untouched,
        text,
    })
}

#[tauri::command]
pub async fn get_anchor(app: AppHandle, project: Option<String>) -> IpcResult<AnchorView> {
    off_main(app, move |ws| view(ws, project)).await
}

/// Creates the skeleton if the anchor is missing (never overwrites), then returns it.
#[tauri::command]
pub async fn init_anchor(app: AppHandle, project: Option<String>) -> IpcResult<AnchorView> {
    off_main(app, move |ws| {
        ws.init_anchor(AnchorOf::known(project.as_deref()))?;
        view(ws, project)
    })
    .await
}

#[tauri::command]
pub async fn save_anchor(
    app: AppHandle,
    project: Option<String>,
    text: String,
) -> IpcResult<AnchorView> {
    off_main(app, move |ws| {
        ws.save_anchor(AnchorOf::known(project.as_deref()), &text)?;
        view(ws, project)
    })
    .await
}
