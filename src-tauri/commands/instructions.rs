//! Agents' instruction files beside the trust anchors: list, view, edit, open in the editor.
//! Files are named by project and kind; core resolves the path (the UI never sends one).

use ambry_core::markdown_to_safe_html;
use ambry_core::InstructionView;
use ambry_core::Workspace;
use ambry_core::{InstructionFile, InstructionKind};
use serde::Serialize;
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct InstructionPage {
    #[serde(flatten)]
    pub view: InstructionView,
    pub html: String,
}

fn page(
    ws: &Workspace,
    project: Option<&str>,
    kind: InstructionKind,
) -> IpcResult<InstructionPage> {
    let view = ws.instruction(project, kind)?;
    Ok(InstructionPage {
        html: markdown_to_safe_html(&view.text),
        view,
    })
}

#[tauri::command]
pub async fn instruction_files(
    app: AppHandle,
    project: Option<String>,
) -> IpcResult<Vec<InstructionFile>> {
    off_main(app, move |ws| Ok(ws.instruction_files(project.as_deref())?)).await
}

#[tauri::command]
pub async fn get_instruction(
    app: AppHandle,
    project: Option<String>,
    kind: InstructionKind,
) -> IpcResult<InstructionPage> {
    off_main(app, move |ws| page(ws, project.as_deref(), kind)).await
}

/// `base`: the text the editor started from (`null`: the file did not exist), so an edit never
/// overwrites what an agent wrote meanwhile.
#[tauri::command]
pub async fn save_instruction(
    app: AppHandle,
    project: Option<String>,
    kind: InstructionKind,
    text: String,
    base: Option<String>,
) -> IpcResult<InstructionPage> {
    off_main(app, move |ws| {
        ws.save_instruction(
            project.as_deref(),
            kind,
            &text,
            Some(base.as_deref()),
            chrono::Utc::now(),
        )?;
        page(ws, project.as_deref(), kind)
    })
    .await
}

#[tauri::command]
pub async fn open_instruction_in_editor(
    app: AppHandle,
    project: Option<String>,
    kind: InstructionKind,
) -> IpcResult<String> {
    off_main(app, move |ws| {
        crate::editor_launch::open_file(ws, &ws.instruction_path(project.as_deref(), kind)?)
    })
    .await
}
