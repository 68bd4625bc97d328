//! The memory list and detail pane: list, read (with safe HTML), save/rename, forget, and
//! handing a memory to the editor or the file manager.

use chrono::{DateTime, Utc};
use engram_core::embed::{rename_with_vector, save_with_vector, SavedWithVector};
use engram_core::memory::{ForgetOutcome, Memory, MemoryDraft, Scope, ScopeFilter, StoreError};
use engram_core::render::markdown_to_safe_html;
use serde::Serialize;
use tauri::AppHandle;

use super::{Location, MemoryRef};
use crate::ipc_error::{IpcError, IpcResult};
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct MemoryRow {
    pub scope: Scope,
    pub project: Option<String>,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub updated: Option<DateTime<Utc>>,
    /// Why the file does not parse; such files are listed, never hidden.
    pub error: Option<String>,
}

/// A memory as core read it (its path is shown to the person, never accepted back), plus where
/// it lives and its body rendered safely.
#[derive(Debug, Serialize)]
pub struct MemoryDetail {
    #[serde(flatten)]
    pub memory: Memory,
    pub project: Option<String>,
    pub html: String,
}

#[tauri::command]
pub async fn list_memories(app: AppHandle, location: Location) -> IpcResult<Vec<MemoryRow>> {
    off_main(app, move |state| {
        let store = state.store(location.project_slug())?;
        let filter = match location.scope {
            Scope::User => ScopeFilter::User,
            Scope::Project => ScopeFilter::Project,
        };
        let project = location.project_slug().map(str::to_string);
        Ok(store
            .list(filter)?
            .into_iter()
            .map(|f| match f.parsed {
                Ok(m) => MemoryRow {
                    scope: m.scope,
                    project: project.clone(),
                    name: m.name,
                    kind: m.kind,
                    description: m.description,
                    updated: m.updated.or(m.created),
                    error: None,
                },
                Err(reason) => MemoryRow {
                    scope: f.scope,
                    project: project.clone(),
                    name: f.name,
                    kind: String::new(),
                    description: String::new(),
                    updated: None,
                    error: Some(reason),
                },
            })
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn get_memory(app: AppHandle, memory: MemoryRef) -> IpcResult<MemoryDetail> {
    off_main(app, move |state| {
        let store = state.store(memory.location.project_slug())?;
        let m = store.get(Some(memory.location.scope), &memory.name)?;
        Ok(MemoryDetail {
            project: memory.location.project_slug().map(str::to_string),
            html: markdown_to_safe_html(&m.body),
            memory: m,
        })
    })
    .await
}

/// Saves through the same path as `engram memory save` (vector included when the model loads).
/// `original` is the name being edited (`None` for a new memory, which must not exist yet).
#[tauri::command]
pub async fn save_memory(
    app: AppHandle,
    location: Location,
    original: Option<String>,
    draft: MemoryDraft,
) -> IpcResult<SavedWithVector> {
    off_main(app, move |state| {
        let config = state.config()?;
        let store = state.store(location.project_slug())?;
        let models = state.model_paths(&config);
        let now = Utc::now();
        let scope = location.scope;
        let saved = match original.as_deref() {
            None => {
                if store.get(Some(scope), &draft.name).is_ok() {
                    return Err(StoreError::AlreadyExists { scope: scope.to_string(), name: draft.name }.into());
                }
                save_with_vector(&store, scope, draft, now, &models)?
            }
            Some(old) if old != draft.name => rename_with_vector(&store, scope, old, draft, now, &models)?,
            Some(_) => save_with_vector(&store, scope, draft, now, &models)?,
        };
        state.memories_written();
        Ok(saved)
    })
    .await
}

#[tauri::command]
pub async fn forget_memory(app: AppHandle, memory: MemoryRef) -> IpcResult<ForgetOutcome> {
    off_main(app, move |state| {
        let store = state.store(memory.location.project_slug())?;
        let outcome = store.forget(memory.location.scope, &memory.name, Utc::now())?;
        state.memories_written();
        Ok(outcome)
    })
    .await
}

/// Opens a web or mail link from a rendered memory in the system browser (the window itself
/// never navigates); the UI asks the person first.
#[tauri::command]
pub fn open_link(url: String) -> IpcResult<()> {
    if !engram_core::render::openable_link(&url) {
        return Err(IpcError::new("invalid_link", format!("only web and mail links open from a memory, not {url:?}")));
    }
    open::that_detached(&url).map_err(|e| IpcError::new("launch_failed", format!("no browser opens {url}: {e}")))
}

/// Markdown → safe HTML for live previews (anchors, the editor's preview tab).
#[tauri::command]
pub fn render_markdown(text: String) -> String {
    markdown_to_safe_html(&text)
}

#[tauri::command]
pub async fn open_in_editor(app: AppHandle, memory: MemoryRef) -> IpcResult<String> {
    off_main(app, move |state| {
        let config = state.config()?;
        let store = state.store(memory.location.project_slug())?;
        let path = store.get(Some(memory.location.scope), &memory.name)?.path;
        crate::editor_launch::open_file(&config.editor.command, &state.env, &path)
    })
    .await
}

#[tauri::command]
pub async fn reveal_in_folder(app: AppHandle, memory: MemoryRef) -> IpcResult<()> {
    off_main(app, move |state| {
        let store = state.store(memory.location.project_slug())?;
        let path = store.get(Some(memory.location.scope), &memory.name)?.path;
        let folder = path.parent().ok_or_else(|| IpcError::new("io", "the memory has no folder"))?;
        open::that_detached(folder)
            .map_err(|e| IpcError::new("launch_failed", format!("cannot open {}: {e}", folder.display())))
    })
    .await
}
