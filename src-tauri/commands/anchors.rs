//! Trust anchors: USER.md and a project's `.engram/ENGRAM.md` — view, create from the skeleton,
//! edit.

use std::path::PathBuf;

use engram_core::anchors::{self, AnchorKind};
use engram_core::render::markdown_to_safe_html;
use serde::Serialize;
use tauri::AppHandle;

use crate::ipc_error::{IpcError, IpcResult};
use crate::state::{off_main, AppState};

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

fn anchor_path(state: &AppState, project: Option<&str>) -> IpcResult<(AnchorKind, PathBuf)> {
    match project {
        None => Ok((AnchorKind::User, anchors::user_anchor_path(&state.home))),
        Some(slug) => {
            let known = state.project(slug)?;
            if known.roots.is_empty() {
                return Err(IpcError::new(
                    "no_project_root",
                    format!("Engram does not know where {} lives on disk; add it by picking its folder", known.display_name()),
                ));
            }
            Ok((AnchorKind::Project, anchors::project_anchor_path(&known.to_project())))
        }
    }
}

fn view(state: &AppState, project: Option<String>) -> IpcResult<AnchorView> {
    let (kind, path) = anchor_path(state, project.as_deref())?;
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
    off_main(app, move |state| view(state, project)).await
}

/// Creates the skeleton if the anchor is missing (never overwrites), then returns it.
#[tauri::command]
pub async fn init_anchor(app: AppHandle, project: Option<String>) -> IpcResult<AnchorView> {
    off_main(app, move |state| {
        let (kind, path) = anchor_path(state, project.as_deref())?;
        anchors::init(kind, &path)?;
        view(state, project)
    })
    .await
}

#[tauri::command]
pub async fn save_anchor(app: AppHandle, project: Option<String>, text: String) -> IpcResult<AnchorView> {
    off_main(app, move |state| {
        let (_, path) = anchor_path(state, project.as_deref())?;
        anchors::save(&path, &text)?;
        view(state, project)
    })
    .await
}
