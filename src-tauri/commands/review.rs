//! The Review view (DESIGN §14): the inbox of one view (the user scope and, when named, one
//! project's) and the actions on it — keep, supersede, merge, and the undo of the last two; the
//! merge editor's opening text and a pair's texts compared; and asking the person's own agent
//! about the pairs marked "duplicate or conflict?". Forget is `forget_memory` and edit is the
//! memory form: the review adds no second way to do either.
//!
//! Deliberately does not: judge anything (core's `lifecycle` does) or read the clock anywhere
//! but here, where the person acts.

use ambry_core::AskReport;
use ambry_core::{Acted, Comparison, Finding, MergeDraft, MergeText, Replaced, SavedWithVector};
use ambry_core::{Memory, Scope};
use chrono::Utc;
use serde::Deserialize;
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::{in_background, off_main};

/// One memory of a finding as the review names it: its scope within the view's project.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ReviewRef {
    pub scope: Scope,
    pub name: String,
}

/// The findings of the view: the user scope, plus `project`'s scope when one is named (a
/// project memory restating a user one is found only there).
#[tauri::command]
pub async fn review_findings(app: AppHandle, project: Option<String>) -> IpcResult<Vec<Finding>> {
    // Asked for after every change, for the sidebar's count: it yields to typing.
    in_background(app, move |ws| {
        Ok(ws.review(&ws.place_of(project.as_deref())?, Utc::now())?)
    })
    .await
}

#[tauri::command]
pub async fn review_keep(
    app: AppHandle,
    project: Option<String>,
    memory: ReviewRef,
) -> IpcResult<Memory> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.review_keep(&place, memory.scope, &memory.name, Utc::now())?)
    })
    .await
}

/// Say when a memory is needed (the "needs when" finding): its `when` phrases replaced.
#[tauri::command]
pub async fn review_when(
    app: AppHandle,
    project: Option<String>,
    memory: ReviewRef,
    phrases: Vec<String>,
) -> IpcResult<Memory> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.review_when(&place, memory.scope, &memory.name, &phrases, Utc::now())?)
    })
    .await
}

/// A proposed rule answered (DESIGN §16): `on` turns it on; otherwise it is turned off (kept in
/// the file, checking nothing, and out of the inbox).
#[tauri::command]
pub async fn review_rule(
    app: AppHandle,
    project: Option<String>,
    memory: ReviewRef,
    on: bool,
) -> IpcResult<Memory> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        let status = if on {
            ambry_core::RuleStatus::On
        } else {
            ambry_core::RuleStatus::Off
        };
        Ok(ws
            .set_rule_status(&place, Some(memory.scope), &memory.name, status, Utc::now())?
            .outcome
            .memory)
    })
    .await
}

/// An "ignored" finding's offer taken: `rule` (read from the memory's text, or its own) is
/// saved with the memory and turned on.
#[tauri::command]
pub async fn review_set_rule(
    app: AppHandle,
    project: Option<String>,
    memory: ReviewRef,
    rule: ambry_core::Enforce,
) -> IpcResult<Memory> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws
            .set_rule(
                &place,
                Some(memory.scope),
                &memory.name,
                Some(rule),
                Utc::now(),
            )?
            .outcome
            .memory)
    })
    .await
}

/// A team memory changed through git, read as it is now: out of the inbox.
#[tauri::command]
pub async fn review_team_seen(
    app: AppHandle,
    project: Option<String>,
    name: String,
) -> IpcResult<()> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.team_seen(&place, &name)?)
    })
    .await
}

/// `memory` is replaced by `by` (a memory of the same view, either scope); `undo` restores it.
#[tauri::command]
pub async fn review_supersede(
    app: AppHandle,
    project: Option<String>,
    memory: ReviewRef,
    by: String,
) -> IpcResult<Acted> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.review_supersede(&place, memory.scope, &memory.name, &by, Utc::now())?)
    })
    .await
}

/// `into` takes the person's merged `body` and `description` and records `merged_from`; `from`
/// is archived; `undo` restores both.
#[tauri::command]
pub async fn review_merge(
    app: AppHandle,
    project: Option<String>,
    into: ReviewRef,
    from: ReviewRef,
    body: String,
    description: Option<String>,
) -> IpcResult<Acted> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.review_merge(
            &place,
            (into.scope, &into.name),
            (from.scope, &from.name),
            MergeText {
                body: Some(body),
                description,
            },
            Utc::now(),
        )?)
    })
    .await
}

/// The person's own agent (`with`: `claude` or `codex`; else `[distill] agent`) judges the
/// view's uncertain pairs in one run; `dry_run` says what would be sent and its size and sends
/// nothing. The verdicts show beside their findings; no memory is changed.
#[tauri::command]
pub async fn review_ask(
    app: AppHandle,
    project: Option<String>,
    with: Option<String>,
    dry_run: bool,
    run: Option<String>,
) -> IpcResult<AskReport> {
    crate::state::off_main_stoppable(app, run, move |ws, stop| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.review_ask(
            &place,
            super::distill::agent(with),
            dry_run,
            Utc::now(),
            stop,
        )?)
    })
    .await
}

/// What the merge editor opens with when `into` stays: its body and description, and the
/// sentences of `from` that body does not say.
#[tauri::command]
pub async fn review_merge_draft(
    app: AppHandle,
    project: Option<String>,
    into: ReviewRef,
    from: ReviewRef,
) -> IpcResult<MergeDraft> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.review_merge_draft(&place, (into.scope, &into.name), (from.scope, &from.name))?)
    })
    .await
}

/// The Undo of a supersede or a merge: the versions it replaced, restored.
#[tauri::command]
pub async fn review_undo(
    app: AppHandle,
    project: Option<String>,
    undo: Vec<Replaced>,
) -> IpcResult<Vec<SavedWithVector>> {
    off_main(app, move |ws| {
        let place = ws.place_of(project.as_deref())?;
        Ok(ws.review_undo(&place, &undo, Utc::now())?)
    })
    .await
}

/// Two texts a pair's comparison shows side by side.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct TextPair {
    pub a: String,
    pub b: String,
}

/// Pairs of texts, each marked against the other (what a pair's comparison shows): a sentence
/// both say unmarked, only the words that differ marked in one they both have a version of.
#[tauri::command]
pub async fn compare_texts(pairs: Vec<TextPair>) -> Vec<Comparison> {
    pairs
        .iter()
        .map(|p| ambry_core::compare_texts(&p.a, &p.b))
        .collect()
}
