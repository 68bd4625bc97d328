//! A person's decision on a proposal: accept (an ordinary archived write through the store,
//! with `source:` naming the session and turns it came from; update, supersede and duplicate
//! through the lifecycle actions; `when` phrases through `annotate::accept`) or reject (the
//! store is not touched).
//!
//! Owns: what each kind of proposal writes when accepted, the person's edits applied first
//! (and logged as `edited`, so measuring distill can tell them apart), and logging decisions.
//! Deliberately does not: read the clock or write vectors (the workspace does).

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::error::DistillError;
use super::inbox::{Decision, Inbox};
use super::proposal::{Action, Proposal};
use crate::lifecycle;
use ambry_store::memory::when::{value, WHEN_KEY};
use ambry_store::memory::{
    Enforce, MemoryDraft, RuleEdit, RuleStatus, SaveOutcome, Store, StoreError,
};

/// What a person changed before accepting; `None` keeps the proposal's text.
#[derive(Debug, Clone, Default, Deserialize, ts_rs::TS)]
pub struct Edits {
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub description: Option<String>,
    pub body: Option<String>,
}

impl Edits {
    fn apply(&self, p: &mut Proposal) -> bool {
        let mut edited = false;
        for (edit, field) in [
            (&self.name, &mut p.name),
            (&self.kind, &mut p.kind),
            (&self.description, &mut p.description),
            (&self.body, &mut p.body),
        ] {
            if let Some(value) = edit {
                if value.trim_end() != field.trim_end() {
                    *field = value.clone();
                    edited = true;
                }
            }
        }
        edited
    }
}

/// Why an accept is wrapped: a store refusal stays a store error (its code and field).
#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    #[error(transparent)]
    Distill(#[from] DistillError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Accepts pending proposal `id` into `store` (which must be the view it was made for).
pub fn accept(
    inbox: &Inbox,
    store: &Store,
    id: &str,
    edits: &Edits,
    now: DateTime<Utc>,
) -> Result<SaveOutcome, AcceptError> {
    let mut p = inbox.get(id)?;
    if let Some(project) = p.project.as_ref().filter(|_| !p.belongs_to(store)) {
        return Err(DistillError::NotApplicable {
            id: id.into(),
            reason: format!(
                "it is for project {}; run it from that repository (--cwd {})",
                project.slug,
                project.root.display()
            ),
        }
        .into());
    }
    if p.action == Action::When {
        return accept_when(inbox, store, &p, edits, now);
    }
    let edited = edits.apply(&mut p);
    let source = p.source_value();
    // What the memory is for (DESIGN §5) goes in with it; a proposal without phrases keeps the
    // memory's own.
    let when = (!p.when.is_empty()).then(|| ambry_store::memory::when::value(&p.when));
    let mut keys = vec![("source", source.as_str())];
    keys.extend(
        when.as_deref()
            .map(|w| (ambry_store::memory::when::WHEN_KEY, w)),
    );
    let draft = |name: &str, tags: Vec<String>| MemoryDraft {
        name: name.to_string(),
        kind: p.kind.clone(),
        description: p.description.clone(),
        body: p.body.clone(),
        tags,
    };
    let target = p.target.clone().unwrap_or_default();
    // A proposed rule is saved off (`proposed`); a rule the person set on that memory stands.
    let rule = match &p.enforce {
        None => RuleEdit::Keep,
        Some(proposed) => match store
            .get(Some(p.scope), &p.name)
            .ok()
            .and_then(|m| m.lifecycle.enforce)
        {
            Some(current) if current.status != RuleStatus::Proposed => RuleEdit::Keep,
            _ => RuleEdit::Set(Enforce {
                status: RuleStatus::Proposed,
                ..proposed.clone()
            }),
        },
    };
    let outcome = match p.action {
        Action::New => {
            if store.get(Some(p.scope), &p.name).is_ok() {
                return Err(StoreError::AlreadyExists {
                    scope: p.scope.to_string(),
                    name: p.name.clone(),
                }
                .into());
            }
            store.save_ruled(p.scope, draft(&p.name, Vec::new()), &keys, &rule, now)?
        }
        Action::Update => {
            let current = store.get(Some(p.scope), &target)?;
            if p.name != target {
                return Err(DistillError::NotApplicable {
                    id: id.into(),
                    reason:
                        "an update keeps the memory's name; rename it with `ambry memory rename`"
                            .into(),
                }
                .into());
            }
            store.save_ruled(p.scope, draft(&target, current.tags), &keys, &rule, now)?
        }
        Action::Supersede => {
            store.get(Some(p.scope), &target)?;
            let saved = store.save_ruled(p.scope, draft(&p.name, Vec::new()), &keys, &rule, now)?;
            lifecycle::supersede(store, p.scope, &target, &p.name, now)?;
            saved
        }
        Action::Duplicate => {
            let merged = lifecycle::merge(
                store,
                (p.scope, &p.name),
                (p.scope, &target),
                lifecycle::MergeText {
                    body: Some(p.body.clone()),
                    description: None,
                },
                now,
            )?
            .memory;
            store.save_ruled(p.scope, draft(&p.name, merged.tags), &keys, &rule, now)?
        }
        Action::When => unreachable!("accepted by accept_when above"),
    };
    inbox.decide(Decision {
        id: p.id.clone(),
        session_id: p.session_id.clone(),
        decision: if edited { "edited" } else { "accepted" }.into(),
        name: p.name.clone(),
        at: now,
    })?;
    Ok(outcome)
}

/// Accepts `p` (an `Action::When` proposal of `memory distill --annotate`, pending in `inbox`)
/// into `store`: exactly its
/// phrases written to its memory, the rest of the file as it is. Refused, writing nothing, when
/// the person edits it (it carries phrases only), when the memory is gone, retired, changed since
/// the phrases were proposed, or says when it is needed by now.
fn accept_when(
    inbox: &Inbox,
    store: &Store,
    p: &Proposal,
    edits: &Edits,
    now: DateTime<Utc>,
) -> Result<SaveOutcome, AcceptError> {
    let refuse = |reason: String| -> AcceptError {
        DistillError::NotApplicable {
            id: p.id.clone(),
            reason,
        }
        .into()
    };
    if [&edits.name, &edits.kind, &edits.description, &edits.body]
        .iter()
        .any(|e| e.is_some())
    {
        return Err(refuse(format!(
            "it says when {} is needed and changes nothing else: accept it as it is, or say other phrases with `ambry memory review when {} PHRASE…`",
            p.name, p.name
        )));
    }
    let target = p.target.as_deref().unwrap_or(&p.name);
    let current = match store.get(Some(p.scope), target) {
        Ok(m) => m,
        Err(StoreError::NotFound { .. }) => {
            return Err(refuse(format!(
                "{}/{target} is gone; reject it (`ambry memory review reject {}`)",
                p.scope, p.id
            )))
        }
        Err(e) => return Err(e.into()),
    };
    if !current.lifecycle.when.is_empty() {
        return Err(refuse(format!(
            "{}/{target} says when it is needed since this was proposed ({}); those phrases stay: reject this proposal (`ambry memory review reject {}`), or replace them with `ambry memory review when {target} PHRASE…`",
            p.scope,
            current.lifecycle.when.join("; "),
            p.id
        )));
    }
    if let Some(why) = current.retirement(Some(now.date_naive())) {
        return Err(refuse(format!(
            "{}/{target} is {why} since this was proposed; reject it (`ambry memory review reject {}`)",
            p.scope, p.id
        )));
    }
    if p.target_fingerprint.as_deref() != Some(current.content_fingerprint().as_str()) {
        return Err(refuse(format!(
            "{}/{target} changed since these phrases were proposed for it: reject it (`ambry memory review reject {}`) and run `ambry memory distill --annotate` again",
            p.scope, p.id
        )));
    }
    let phrases = value(&p.when);
    let outcome = store.save_ruled(
        p.scope,
        MemoryDraft::from(&current),
        &[(WHEN_KEY, phrases.as_str())],
        &RuleEdit::Keep,
        now,
    )?;
    inbox.decide(Decision {
        id: p.id.clone(),
        session_id: p.session_id.clone(),
        decision: "accepted".into(),
        name: p.name.clone(),
        at: now,
    })?;
    Ok(outcome)
}

/// Rejects pending proposal `id`: it leaves the inbox, the store is not touched.
pub fn reject(inbox: &Inbox, id: &str, now: DateTime<Utc>) -> Result<Proposal, DistillError> {
    let p = inbox.get(id)?;
    inbox.decide(Decision {
        id: p.id.clone(),
        session_id: p.session_id.clone(),
        decision: "rejected".into(),
        name: p.name.clone(),
        at: now,
    })?;
    Ok(p)
}
