//! Trust anchors: USER.md and a project's `.ambry/AMBRY.md` — view, create from the skeleton,
//! edit.

use ambry_core::anchors::{self, AnchorKind};
use ambry_core::render::markdown_to_safe_html;
use ambry_core::Workspace;
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
    let (kind, path) = ws.anchor_path(project.as_deref())?;
    let text = anchors::read(&path)?;
    let exists = text.is_some();
    let text = text.unwrap_or_default();
    Ok(AnchorView {
        kind,
        project,
        path: path.display().to_string(),
        exists,
        html: markdown_to_safe_html(&text),
        untouched: anchors::is_untouched_skeleton(&text),
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
        let (kind, path) = ws.anchor_path(project.as_deref())?;
        anchors::init(kind, &path)?;
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
        let (_, path) = ws.anchor_path(project.as_deref())?;
        anchors::save(&path, &text)?;
        view(ws, project)
    })
    .await
}
