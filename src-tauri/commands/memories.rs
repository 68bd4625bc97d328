//! The memory list and detail pane: list, read (with safe HTML), save/rename, forget, and
//! handing a memory to the editor or the file manager.

use ambry_core::markdown_to_safe_html;
use ambry_core::FrontEndCode;
use ambry_core::SavedWithVector;
use ambry_core::{Backtest, Enforce, RuleEdit};
use ambry_core::{ForgetOutcome, ForgottenVersion, Memory, MemoryDraft, ScopeFilter};
use ambry_core::{MemoryRow, RenamedWithVector};
use ambry_core::{Reader, UseKind};
use chrono::Utc;
use serde::Serialize;
use tauri::AppHandle;

use super::{Location, MemoryRef};
use crate::ipc_error::{front_end, IpcResult};
use crate::state::off_main;

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
    off_main(app, move |ws| {
        let filter = ScopeFilter::from(location.scope);
        Ok(ws.list_with_usage(&ws.place_of(location.project_slug())?, filter, Utc::now())?)
    })
    .await
}

#[tauri::command]
pub async fn get_memory(app: AppHandle, memory: MemoryRef) -> IpcResult<MemoryDetail> {
    off_main(app, move |ws| {
        let place = ws.place_of(memory.location.project_slug())?;
        let m = ws.read_memory(
            &place,
            Some(memory.location.scope),
            &memory.name,
            Reader::Person,
            Utc::now(),
        )?;
        Ok(MemoryDetail {
            project: memory.location.project_slug().map(str::to_string),
            html: markdown_to_safe_html(&m.body),
            memory: m,
        })
    })
    .await
}

/// Saves through the same path as `ambry memory save` (vector included when the model loads).
/// `original` is the name being edited (`None` for a new memory, which must not exist yet);
/// `rule` sets or removes the memory's rule (DESIGN §16; the person's, so on), or keeps it.
#[tauri::command]
pub async fn save_memory(
    app: AppHandle,
    location: Location,
    original: Option<String>,
    draft: MemoryDraft,
    rule: Option<RuleEdit>,
    when: Option<Vec<String>>,
) -> IpcResult<SavedWithVector> {
    off_main(app, move |ws| {
        let place = ws.place_of(location.project_slug())?;
        let (scope, now) = (location.scope, Utc::now());
        let rule = rule.unwrap_or_default();
        // `when` (DESIGN §5): the form sends its phrases; none sent keeps the file's.
        let when = when.as_deref();
        let saved = match original.as_deref() {
            None => ws.create_ruled_when(&place, scope, draft, &rule, when, now)?,
            Some(old) if old != draft.name => {
                let mut renamed = ws.rename(&place, scope, old, draft, now)?;
                if when.is_some() {
                    let memory = &renamed.outcome.memory;
                    renamed = ws.save_ruled_when(
                        &place,
                        scope,
                        memory.into(),
                        &RuleEdit::Keep,
                        when,
                        now,
                    )?;
                }
                match &rule {
                    RuleEdit::Keep => renamed,
                    RuleEdit::Set(r) => ws.set_rule(
                        &place,
                        Some(scope),
                        &renamed.outcome.memory.name,
                        Some(r.clone()),
                        now,
                    )?,
                    RuleEdit::Remove => {
                        ws.set_rule(&place, Some(scope), &renamed.outcome.memory.name, None, now)?
                    }
                }
            }
            Some(_) => ws.save_ruled_when(&place, scope, draft, &rule, when, now)?,
        };
        ws.record_use(
            &place,
            scope,
            &saved.outcome.memory.name,
            UseKind::Edited,
            None,
            now,
        );
        Ok(saved)
    })
    .await
}

/// Renames a memory keeping its history; links and retrieval cases follow (DESIGN §14).
#[tauri::command]
pub async fn rename_memory(
    app: AppHandle,
    memory: MemoryRef,
    new: String,
) -> IpcResult<RenamedWithVector> {
    off_main(app, move |ws| {
        let place = ws.place_of(memory.location.project_slug())?;
        Ok(ws.rename_memory(
            &place,
            memory.location.scope,
            &memory.name,
            &new,
            Utc::now(),
        )?)
    })
    .await
}

#[tauri::command]
pub async fn forget_memory(app: AppHandle, memory: MemoryRef) -> IpcResult<ForgetOutcome> {
    off_main(app, move |ws| {
        Ok(ws.forget(
            &ws.place_of(memory.location.project_slug())?,
            memory.location.scope,
            &memory.name,
            Utc::now(),
        )?)
    })
    .await
}

/// Forgets the memories selected in one list, all or none (each archived).
#[tauri::command]
pub async fn forget_memories(
    app: AppHandle,
    location: Location,
    names: Vec<String>,
) -> IpcResult<Vec<ForgetOutcome>> {
    off_main(app, move |ws| {
        Ok(ws.forget_many(
            &ws.place_of(location.project_slug())?,
            location.scope,
            &names,
            Utc::now(),
        )?)
    })
    .await
}

/// The Undo of `forget_memories`: every archived version back, each with its vector.
#[tauri::command]
pub async fn restore_memories(
    app: AppHandle,
    location: Location,
    versions: Vec<ForgottenVersion>,
) -> IpcResult<Vec<SavedWithVector>> {
    off_main(app, move |ws| {
        Ok(ws.restore_many(
            &ws.place_of(location.project_slug())?,
            location.scope,
            &versions,
            Utc::now(),
        )?)
    })
    .await
}

/// Opens a web or mail link from a rendered memory in the system browser (the window itself
/// never navigates); the UI asks the person first.
#[tauri::command]
pub fn open_link(url: String) -> IpcResult<()> {
    if !ambry_core::openable_link(&url) {
        return Err(front_end(
            FrontEndCode::InvalidLink,
            format!("only web and mail links open from a memory, not {url:?}"),
        ));
    }
    open::that_detached(&url).map_err(|e| {
        front_end(
            FrontEndCode::LaunchFailed,
            format!("no browser opens {url}: {e}"),
        )
    })
}

/// Markdown → safe HTML for live previews (anchors, the editor's preview tab).
#[tauri::command]
pub fn render_markdown(text: String) -> String {
    markdown_to_safe_html(&text)
}

#[tauri::command]
pub async fn open_in_editor(app: AppHandle, memory: MemoryRef) -> IpcResult<String> {
    off_main(app, move |ws| {
        let path = ws
            .get(
                &ws.place_of(memory.location.project_slug())?,
                Some(memory.location.scope),
                &memory.name,
            )?
            .path;
        crate::editor_launch::open_file(ws, &path)
    })
    .await
}

#[tauri::command]
pub async fn reveal_in_folder(app: AppHandle, memory: MemoryRef) -> IpcResult<()> {
    off_main(app, move |ws| {
        let path = ws
            .get(
                &ws.place_of(memory.location.project_slug())?,
                Some(memory.location.scope),
                &memory.name,
            )?
            .path;
        let folder = path.parent().unwrap_or(&path);
        open::that_detached(folder).map_err(|e| {
            front_end(
                FrontEndCode::LaunchFailed,
                format!("cannot open {}: {e}", folder.display()),
            )
        })
    })
    .await
}

/// The memory form's live test: whether `rule` catches a `tool` call with `sample` as its input.
#[tauri::command]
pub async fn test_rule(
    app: AppHandle,
    rule: Enforce,
    tool: String,
    sample: String,
) -> IpcResult<bool> {
    off_main(app, move |ws| Ok(ws.rule_catches(&rule, &tool, &sample)?)).await
}

/// The past tool calls `rule` (or the memory's own) would have caught (DESIGN §16).
#[tauri::command]
pub async fn backtest_rule(
    app: AppHandle,
    memory: MemoryRef,
    rule: Option<Enforce>,
) -> IpcResult<Backtest> {
    off_main(app, move |ws| {
        let place = ws.place_of(memory.location.project_slug())?;
        Ok(ws.rule_backtest(
            &place,
            Some(memory.location.scope),
            &memory.name,
            rule.as_ref(),
        )?)
    })
    .await
}
