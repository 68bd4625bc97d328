//! The compose preview: exactly what `engram compose` prints for a prompt in a project.

use engram_core::compose::{compose, ComposeRequest, Composition};
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[tauri::command]
pub async fn compose_preview(app: AppHandle, prompt: String, project: Option<String>) -> IpcResult<Composition> {
    off_main(app, move |state| {
        let config = state.config()?;
        let store = state.store(project.as_deref())?;
        let request = ComposeRequest::new(prompt, &config.retrieval);
        let semantic = state.semantic(&config);
        Ok(compose(&store, &mut state.lock_cache(), &config.retrieval, &request, semantic))
    })
    .await
}
