//! Memory that stays true (DESIGN §14): the review inbox and the actions a person takes on it.
//!
//! Owns: building the inbox of one store's view (the user scope and the project's) — duplicates,
//! conflicts, stale against the code, expired — each finding with its evidence; leaving out a
//! memory a person kept as it is (`reviewed:`) or that is already retired; and the actions
//! (keep, supersede, merge), each an ordinary archived write through the store.
//! Deliberately does not: read the clock (callers pass `now`), embed, or record usage (the
//! unused finding needs the usage log, which is not built yet).

pub mod pairs;
pub mod stale;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::memory::{frontmatter, Memory, MemoryDraft, Scope, ScopeFilter, Store, StoreError};
use pairs::{differing_claims, jaccard, term_set, DUPLICATE_AT, SAME_SUBJECT_AT};
pub use stale::MissingPath;

/// One memory as a finding shows it: enough to compare two side by side.
#[derive(Debug, Clone, Serialize)]
pub struct Subject {
    pub scope: Scope,
    pub name: String,
    pub description: String,
    pub body: String,
}

impl Subject {
    fn of(m: &Memory) -> Subject {
        Subject {
            scope: m.scope,
            name: m.name.clone(),
            description: m.description.clone(),
            body: m.body.clone(),
        }
    }
}

/// What the inbox found, and why.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    /// Two memories that say the same thing.
    Duplicate {
        memories: [Subject; 2],
        similarity: f64,
    },
    /// The same subject with different claims, as `(first's, second's)`.
    Conflict {
        memories: [Subject; 2],
        similarity: f64,
        claims: Vec<(String, String)>,
    },
    /// A project memory naming paths no longer in its repository.
    Stale {
        memory: Subject,
        missing: Vec<MissingPath>,
    },
    /// Its `expires:` day has come.
    Expired { memory: Subject, on: NaiveDate },
    /// A distill proposal waiting for a person's accept or reject (DESIGN §14).
    Proposal(Box<crate::distill::Proposal>),
}

impl Finding {
    /// The memories the finding is about.
    pub fn names(&self) -> Vec<(Scope, &str)> {
        match self {
            Finding::Duplicate { memories, .. } | Finding::Conflict { memories, .. } => memories
                .iter()
                .map(|m| (m.scope, m.name.as_str()))
                .collect(),
            Finding::Stale { memory, .. } | Finding::Expired { memory, .. } => {
                vec![(memory.scope, memory.name.as_str())]
            }
            Finding::Proposal(p) => {
                let mut names = vec![(p.scope, p.name.as_str())];
                names.extend(p.target.as_deref().map(|t| (p.scope, t)));
                names
            }
        }
    }
}

/// The review inbox of `store`'s view on `today`: pairs within a scope, and project memories
/// restating or contradicting user ones; a memory kept as it reads now, or retired, is quiet.
pub fn review(store: &Store, today: NaiveDate) -> Result<Vec<Finding>, StoreError> {
    let memories: Vec<Memory> = store
        .list(ScopeFilter::All)?
        .into_iter()
        .filter_map(|f| f.parsed.ok())
        .filter(|m| !m.is_retired(None))
        .collect();
    let mut findings = Vec::new();
    for m in &memories {
        if let Some(on) = m.lifecycle.expires.filter(|on| *on <= today) {
            findings.push(Finding::Expired {
                memory: Subject::of(m),
                on,
            });
        }
    }
    let open: Vec<&Memory> = memories
        .iter()
        .filter(|m| !m.is_retired(Some(today)))
        .collect();
    let terms: Vec<_> = open.iter().map(|m| term_set(m)).collect();
    for i in 0..open.len() {
        for j in i + 1..open.len() {
            let (a, b) = (open[i], open[j]);
            // A user memory restating another user memory, a project memory restating either;
            // the same name in both scopes is shadowing, not duplication.
            if a.name == b.name && a.scope != b.scope {
                continue;
            }
            // Quiet once a person kept both as they read now.
            if a.reviewed_as_is() && b.reviewed_as_is() {
                continue;
            }
            let similarity = jaccard(&terms[i], &terms[j]);
            if similarity < SAME_SUBJECT_AT {
                continue;
            }
            let claims = differing_claims(
                &format!("{}\n{}", a.description, a.body),
                &format!("{}\n{}", b.description, b.body),
            );
            let memories = [Subject::of(a), Subject::of(b)];
            if !claims.is_empty() {
                findings.push(Finding::Conflict {
                    memories,
                    similarity,
                    claims,
                });
            } else if similarity >= DUPLICATE_AT {
                findings.push(Finding::Duplicate {
                    memories,
                    similarity,
                });
            }
        }
    }
    if let Some(project) = store.project() {
        for m in open
            .iter()
            .filter(|m| m.scope == Scope::Project && !m.reviewed_as_is())
        {
            let missing = stale::missing_paths(&project.root, &m.body);
            if !missing.is_empty() {
                findings.push(Finding::Stale {
                    memory: Subject::of(m),
                    missing,
                });
            }
        }
    }
    Ok(findings)
}

fn draft_of(m: &Memory) -> MemoryDraft {
    MemoryDraft {
        name: m.name.clone(),
        kind: m.kind.clone(),
        description: m.description.clone(),
        body: m.body.clone(),
        tags: m.tags.clone(),
    }
}

/// Keep: the memory stays as it is and is not flagged again until its text changes.
pub fn keep(
    store: &Store,
    scope: Scope,
    name: &str,
    now: DateTime<Utc>,
) -> Result<Memory, StoreError> {
    let m = store.get(Some(scope), name)?;
    let value = frontmatter::reviewed_value(now, &m.content_fingerprint());
    Ok(store
        .save_with_keys(scope, draft_of(&m), &[("reviewed", &value)], now)?
        .memory)
}

/// Supersede: `name` is replaced by `by` (which must exist in this view) and no longer injected.
pub fn supersede(
    store: &Store,
    scope: Scope,
    name: &str,
    by: &str,
    now: DateTime<Utc>,
) -> Result<Memory, StoreError> {
    if name == by {
        return Err(StoreError::InvalidField {
            field: "superseded_by",
            reason: "a memory cannot supersede itself".into(),
        });
    }
    store.get(None, by)?;
    let m = store.get(Some(scope), name)?;
    Ok(store
        .save_with_keys(scope, draft_of(&m), &[("superseded_by", by)], now)?
        .memory)
}

/// Merge: `into` takes `body` (the person's merged text; `None` keeps both bodies one after the
/// other) and records `merged_from`; `from` is forgotten (archived). Both originals are in the
/// archive afterwards.
pub fn merge(
    store: &Store,
    into: (Scope, &str),
    from: (Scope, &str),
    body: Option<String>,
    now: DateTime<Utc>,
) -> Result<Memory, StoreError> {
    if into == from {
        return Err(StoreError::InvalidField {
            field: "merge",
            reason: "merge two different memories".into(),
        });
    }
    let target = store.get(Some(into.0), into.1)?;
    let source = store.get(Some(from.0), from.1)?;
    let mut merged_from = target.lifecycle.merged_from.clone();
    merged_from.push(source.name.clone());
    merged_from.dedup();
    let mut draft = draft_of(&target);
    draft.body =
        body.unwrap_or_else(|| format!("{}\n\n{}", target.body.trim_end(), source.body.trim_end()));
    let list = format!("[{}]", merged_from.join(", "));
    let saved = store.save_with_keys(into.0, draft, &[("merged_from", &list)], now)?;
    store.forget(from.0, from.1, now)?;
    Ok(saved.memory)
}

#[cfg(test)]
mod tests;
