//! Memories with teeth through the workspace (DESIGN §16): a tool call checked against the
//! rules in scope, a rule set, turned on or off, proposed by an agent, and run over the past.
//!
//! Owns: where the rules come from (the ranker's corpus, which carries each memory's rule, so a
//! check reads no memory file unless a rule caught the call), compiling them once per process,
//! the ledger's part (a reminder once per context; every caught call recorded), and who may turn
//! a rule on (a person: an agent's rule is stored `proposed`, and never replaces the person's).
//! Deliberately does not: speak a hook format, read the clock (callers pass `now`), or fail a
//! call: whatever goes wrong is a note and an empty answer.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::held_sessions::HeldSession;
use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_compose::enforce::ToolCheck;
use ambry_compose::enforce::{self, Backtest, ToolVerdict};
use ambry_compose::ledger::{Ledger, MemoryVersion, ToolCheckRecord};
use ambry_lifecycle::lifecycle::Finding;
use ambry_rank::embed::{self, SavedWithVector};
use ambry_store::memory::{
    Enforce, Memory, MemoryDraft, RuleEdit, RuleStatus, Scope, ScopeFilter, Store, StoreError,
};

/// Calls shown as evidence per finding.
const IGNORED_CALLS_SHOWN: usize = 5;

/// One memory's rule, for `doctor`, the agents card and `memory enforce list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleRow {
    pub scope: Scope,
    pub name: String,
    #[serde(flatten)]
    pub rule: Enforce,
    /// Why it does not compile, when it does not (it is skipped at every call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Workspace {
    /// The answer to a tool call in the project `cwd` belongs to. Never fails: a problem is a
    /// note, and the call goes on untouched.
    pub fn check_tool_call(
        &self,
        cwd: &Path,
        check: &ToolCheck,
        now: DateTime<Utc>,
    ) -> ToolVerdict {
        let store = self.store_at(cwd);
        let corpus = match self.corpus_cache().corpus(&store, ScopeFilter::All) {
            Ok(corpus) => corpus,
            Err(e) => {
                return ToolVerdict {
                    notes: vec![format!("rules not checked: {e}")],
                    ..ToolVerdict::default()
                }
            }
        };
        let (caught, broken) = {
            let mut book = super::lock(&self.rules);
            enforce::caught(&corpus.docs, &check.call, &mut book, now.date_naive())
        };
        let mut notes: Vec<String> = broken
            .iter()
            .map(|b| format!("the rule of {}/{} is skipped: {}", b.scope, b.name, b.error))
            .collect();
        if caught.is_empty() {
            return ToolVerdict {
                notes,
                ..ToolVerdict::default()
            };
        }
        let project = store.project().map(|p| p.slug.clone());
        let version = |m: &Memory| MemoryVersion {
            scope: m.scope,
            project: m.scope.of_a_project().then(|| project.clone()).flatten(),
            name: m.name.clone(),
            content_hash: ambry_compose::compose::content_hash(m),
        };
        let mut ledger = match (&check.session_id, check.record) {
            (Some(_), true) => {
                match Ledger::open_at(
                    &ambry_compose::ledger::ledger_path(&self.home),
                    ambry_compose::ledger::TURN_WAIT,
                ) {
                    Ok(l) => Some(l),
                    Err(e) => {
                        notes.push(format!("not tracked: {e}"));
                        None
                    }
                }
            }
            _ => None,
        };
        let session = check.session_id.as_deref().unwrap_or("");
        let generation = ledger
            .as_mut()
            .and_then(|l| l.generation(session).ok().flatten())
            .unwrap_or(0);
        let mut denied = Vec::new();
        let mut reminded = Vec::new();
        for c in &caught {
            let memory = match ambry_store::memory::read_memory_file(c.scope, &c.path) {
                Ok(Some(m)) => m,
                Ok(None) => continue,
                Err(e) => {
                    notes.push(format!(
                        "the rule of {}/{} is skipped: {e}",
                        c.scope, c.name
                    ));
                    continue;
                }
            };
            match c.action {
                ambry_store::memory::RuleAction::Deny => denied.push(memory),
                ambry_store::memory::RuleAction::Remind => {
                    let before = match ledger.as_mut() {
                        Some(l) if generation > 0 => l
                            .reminded(session, generation, &version(&memory))
                            .unwrap_or(false),
                        _ => false,
                    };
                    if !before {
                        reminded.push(memory);
                    }
                }
            }
        }
        let mut verdict = enforce::verdict(&check.call, &denied, &reminded);
        if let Some(l) = ledger.as_mut() {
            let agent = check.agent.as_deref().unwrap_or("ambry");
            let acted = if denied.is_empty() {
                &reminded
            } else {
                &denied
            };
            for m in acted {
                let v = version(m);
                let action = if denied.is_empty() { "remind" } else { "deny" };
                let recorded = l
                    .record_tool_check(
                        session,
                        agent,
                        generation,
                        &v,
                        action,
                        &check.call.tool,
                        &check.call.input,
                        now,
                    )
                    .and_then(|()| {
                        // A reminded body is in the context now: later turns need not give it again.
                        if action == "remind" && generation > 0 {
                            l.record(
                                session,
                                agent,
                                generation,
                                &[(v.clone(), ambry_compose::ledger::Form::Body)],
                                now,
                            )
                        } else {
                            Ok(())
                        }
                    });
                if let Err(e) = recorded {
                    notes.push(format!("not tracked: {e}"));
                    break;
                }
            }
        }
        verdict.notes.splice(0..0, notes);
        verdict
    }

    /// Saves a memory and sets, removes or keeps its rule (a person's save: a rule set here is on
    /// unless it says otherwise).
    pub fn save_ruled(
        &self,
        place: &Place,
        scope: Scope,
        draft: MemoryDraft,
        rule: &RuleEdit,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        self.write_memory(store, |models| {
            embed::save_ruled_with_vector(store, scope, draft, rule, now, models)
        })
    }

    /// A new memory with its rule, in one write (the app's memory form).
    pub fn create_ruled(
        &self,
        place: &Place,
        scope: Scope,
        draft: MemoryDraft,
        rule: &RuleEdit,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        self.write_memory(store, |models| {
            embed::create_ruled_with_vector(store, scope, draft, rule, now, models)
        })
    }

    /// Whether `rule` catches a call of `tool` with `input` (the memory form's live test); a rule
    /// that does not compile is the error, naming its field.
    pub fn rule_catches(
        &self,
        rule: &Enforce,
        tool: &str,
        input: &str,
    ) -> Result<bool, WorkspaceError> {
        let compiled = rule.compile().map_err(|e| StoreError::InvalidField {
            field: e.field,
            reason: e.reason,
        })?;
        Ok(compiled.covers(tool) && compiled.pattern.is_match(input))
    }

    /// What an agent's save does to a memory's rule: a rule it proposes is stored `proposed`
    /// (checked only once the person turns it on), and it never replaces a rule the person set.
    pub fn agent_rule_edit(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        proposed: Option<Enforce>,
    ) -> Result<RuleEdit, WorkspaceError> {
        let store = place.store();
        let Some(proposed) = proposed else {
            return Ok(RuleEdit::Keep);
        };
        let current = match store.get(Some(scope), name) {
            Ok(m) => m.lifecycle.enforce,
            Err(StoreError::NotFound { .. }) => None,
            Err(e) => return Err(e.into()),
        };
        let proposed = Enforce {
            status: RuleStatus::Proposed,
            ..proposed
        };
        match current {
            Some(current)
                if current.status != RuleStatus::Proposed
                    && (&current.tools, &current.pattern, &current.action)
                        != (&proposed.tools, &proposed.pattern, &proposed.action) =>
            {
                Err(StoreError::InvalidField {
                    field: "enforce",
                    reason: format!(
                        "`{name}` has a rule the person set; an agent may propose a rule only for a memory without one (leave `enforce` out to keep it)"
                    ),
                }
                .into())
            }
            // The person's rule, proposed again as it is: nothing to change.
            Some(current) if current.status != RuleStatus::Proposed => Ok(RuleEdit::Keep),
            _ => Ok(RuleEdit::Set(proposed)),
        }
    }

    /// Turns a memory's rule on or off (a person's decision; the review inbox's "rule proposed"
    /// is answered with this).
    pub fn set_rule_status(
        &self,
        place: &Place,
        scope: Option<Scope>,
        name: &str,
        status: RuleStatus,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        let memory = store.get(scope, name)?;
        let Some(rule) = memory.lifecycle.enforce.clone() else {
            return Err(StoreError::InvalidField {
                field: "enforce",
                reason: format!(
                    "`{name}` has no rule; set one with `ambry memory save {name} --enforce-tool … --enforce-match … --enforce-action …`"
                ),
            }
            .into());
        };
        let rule = Enforce { status, ..rule };
        self.save_ruled(
            place,
            memory.scope,
            MemoryDraft::from(&memory),
            &RuleEdit::Set(rule),
            now,
        )
    }

    /// Sets a memory's rule, on (the person's decision: the app's memory form, an "ignored"
    /// finding's offer); the rest of the memory as it is.
    pub fn set_rule(
        &self,
        place: &Place,
        scope: Option<Scope>,
        name: &str,
        rule: Option<Enforce>,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        let memory = store.get(scope, name)?;
        let edit = match rule {
            Some(rule) => RuleEdit::Set(Enforce {
                status: RuleStatus::On,
                ..rule
            }),
            None => RuleEdit::Remove,
        };
        self.save_ruled(place, memory.scope, MemoryDraft::from(&memory), &edit, now)
    }

    /// Every rule of `filter`'s scopes (shadowed memories' too), and whether each compiles.
    pub fn rules(
        &self,
        place: &Place,
        filter: ScopeFilter,
    ) -> Result<Vec<RuleRow>, WorkspaceError> {
        let store = place.store();
        let mut rows = Vec::new();
        for file in store.list(filter)? {
            let Ok(memory) = file.parsed else { continue };
            if let Some(rule) = memory.lifecycle.enforce {
                rows.push(RuleRow {
                    scope: memory.scope,
                    name: memory.name,
                    error: rule.compile().err().map(|e| e.to_string()),
                    rule,
                });
            }
        }
        Ok(rows)
    }

    /// `memory`'s rule (or `rule`, a draft not yet saved) run over the indexed sessions of its
    /// scope: a project memory's over that project's sessions, a user memory's over all.
    pub fn rule_backtest(
        &self,
        place: &Place,
        scope: Option<Scope>,
        name: &str,
        rule: Option<&Enforce>,
    ) -> Result<Backtest, WorkspaceError> {
        let store = place.store();
        // A memory being written (the form of a new one) is tested with its draft rule alone.
        let (scope, own) = match (store.get(scope, name), rule, scope) {
            (Ok(memory), _, _) => (memory.scope, memory.lifecycle.enforce),
            (Err(StoreError::NotFound { .. }), Some(_), Some(scope)) => (scope, None),
            (Err(e), _, _) => return Err(e.into()),
        };
        let enforce = match rule.or(own.as_ref()) {
            Some(e) => e.clone(),
            None => {
                return Err(StoreError::InvalidField {
                    field: "enforce",
                    reason: format!("`{name}` has no rule to test"),
                }
                .into())
            }
        };
        let compiled = enforce.compile().map_err(|e| StoreError::InvalidField {
            field: e.field,
            reason: e.reason,
        })?;
        let roots: Vec<std::path::PathBuf> = match (scope, store.project()) {
            (Scope::Project | Scope::Team, Some(p)) => {
                let mut roots = vec![p.root.clone()];
                if let Ok(known) = self.project(&p.slug) {
                    roots.extend(known.roots);
                }
                roots
            }
            _ => Vec::new(),
        };
        let index = self.session_index()?;
        let mut out = Backtest {
            name: name.to_string(),
            scope,
            sessions: 0,
            calls: 0,
            caught: Vec::new(),
            notes: Vec::new(),
        };
        for meta in index.sessions(None, usize::MAX >> 1)? {
            let in_scope = roots.is_empty()
                || meta
                    .cwd
                    .as_deref()
                    .is_some_and(|cwd| roots.iter().any(|r| Path::new(cwd).starts_with(r)));
            if !in_scope {
                continue;
            }
            match index.transcript(&meta.session_id) {
                Ok(transcript) => {
                    out.sessions += 1;
                    out.caught
                        .extend(enforce::backtest(&compiled, &transcript, &mut out.calls));
                }
                Err(e) => out
                    .notes
                    .push(format!("session {} not read: {e}", meta.session_id)),
            }
        }
        Ok(out)
    }

    /// `doctor`'s lines on rules: per scope, the rules that are on (and what they catch), those
    /// waiting for the person, and any that do not compile (skipped at every call, named).
    pub fn rule_checks(&self, place: &Place) -> Vec<ambry_store::doctor::Check> {
        use ambry_store::doctor::Check;
        let rows = match self.rules(place, ScopeFilter::All) {
            Ok(rows) => rows,
            Err(e) => return vec![Check::warn("rules", format!("rules not read: {e}"))],
        };
        let mut checks = Vec::new();
        for scope in [Scope::User, Scope::Team, Scope::Project] {
            let of_scope: Vec<&RuleRow> = rows.iter().filter(|r| r.scope == scope).collect();
            if of_scope.is_empty() {
                continue;
            }
            let on: Vec<String> = of_scope
                .iter()
                .filter(|r| r.rule.status == RuleStatus::On && r.error.is_none())
                .map(|r| format!("{} ({} {})", r.name, r.rule.action, r.rule.tools.join(",")))
                .collect();
            let proposed = of_scope
                .iter()
                .filter(|r| r.rule.status == RuleStatus::Proposed)
                .count();
            let mut detail = format!(
                "{scope} scope: {} rule(s) on{}",
                on.len(),
                if on.is_empty() {
                    String::new()
                } else {
                    format!(": {}", on.join(", "))
                }
            );
            if proposed > 0 {
                detail.push_str(&format!(
                    "; {proposed} proposed by an agent, off until you turn them on (`ambry memory review`)"
                ));
            }
            checks.push(Check::ok("rules", detail));
            for broken in of_scope.iter().filter(|r| r.error.is_some()) {
                checks.push(Check::warn(
                    "rules",
                    format!(
                        "{scope}/{}: its rule is skipped at every call: {}",
                        broken.name,
                        broken.error.as_deref().unwrap_or_default()
                    ),
                ));
            }
        }
        checks
    }

    /// The review inbox's "ignored" findings of `store`'s view: memories a recent session held
    /// (their bodies, per the ledger) that a later tool call of that session contradicted, read
    /// from the indexed transcripts. What cannot be read is left out: the inbox is advice.
    pub(super) fn ignored_findings(
        &self,
        store: &Store,
        sessions: &[HeldSession],
        now: DateTime<Utc>,
    ) -> Vec<Finding> {
        let mut found: Vec<Finding> = Vec::new();
        for session in sessions {
            let mut memories: Vec<_> = session.given.iter().collect();
            memories.sort();
            for ((scope, name), since) in memories {
                let (scope, since) = (*scope, *since);
                let Ok(memory) = store.get(Some(scope), name) else {
                    continue;
                };
                if memory.reviewed_as_is() || memory.is_retired(Some(now.date_naive())) {
                    continue;
                }
                let Some((mut calls, rule)) =
                    enforce::ignored_calls(&memory, &session.transcript, since)
                else {
                    continue;
                };
                if let Some(Finding::Ignored { other_sessions, .. }) = found.iter_mut().find(|f| {
                    matches!(f, Finding::Ignored { memory: m, .. } if m.scope == scope && m.name == *name)
                }) {
                    *other_sessions += 1;
                    continue;
                }
                calls.truncate(IGNORED_CALLS_SHOWN);
                found.push(Finding::Ignored {
                    own_rule: memory.lifecycle.enforce.is_some(),
                    memory: ambry_lifecycle::lifecycle::Subject::of(&memory),
                    session_id: session.session_id.clone(),
                    agent: session.agent.clone(),
                    calls,
                    other_sessions: 0,
                    rule,
                });
            }
        }
        found
    }

    /// The calls rules caught: one session's, or all.
    pub fn tool_checks(
        &self,
        session: Option<&str>,
    ) -> Result<Vec<ToolCheckRecord>, WorkspaceError> {
        // Reading never creates the ledger: a home no hook ran in has none.
        if !ambry_compose::ledger::ledger_path(&self.home).exists() {
            return Ok(Vec::new());
        }
        let mut ledger = Ledger::open(&self.home)?;
        Ok(ledger.tool_checks(session)?)
    }
}
