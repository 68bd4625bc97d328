//! The compose preview: exactly what `engram compose` prints for a prompt in a project.

use engram_core::compose::Composition;
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[tauri::command]
pub async fn compose_preview(app: AppHandle, prompt: String, project: Option<String>) -> IpcResult<Composition> {
    off_main(app, move |ws| Ok(ws.compose_for(project.as_deref(), &prompt)?)).await
}
