//! Memory that stays true (DESIGN §14): the review inbox and the actions a person takes on it.
//!
//! Owns: building the inbox of one store's view (the user scope and the project's) — duplicates,
//! conflicts, stale against the code, unused, expired — each finding with its evidence; leaving
//! out a memory a person kept as it is (`reviewed:`) or that is already retired; and the actions
//! (keep, supersede, merge), each an ordinary archived write through the store.
//! Deliberately does not: read the clock (callers pass `now`), embed (callers pass vectors), or
//! read usage files (callers pass each memory's last use by an agent).

pub mod candidates;
pub mod claims;
pub mod needs_when;
pub mod pairs;
pub mod rival;
pub mod sentences;
pub mod sides;
pub mod stale;

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use ambry_store::memory::{
    archive, frontmatter, Memory, MemoryDraft, Scope, ScopeFilter, Store, StoreError,
};
use pairs::{judge, Side, Verdict};
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
    pub fn of(m: &Memory) -> Subject {
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
        /// What both are about, as read from their claims ("orders service", "production").
        #[serde(skip_serializing_if = "Vec::is_empty")]
        subject: Vec<String>,
        /// Values both state, each written its own way, as `(first's, second's)` ("15
        /// minutes", "900 seconds").
        #[serde(skip_serializing_if = "Vec::is_empty")]
        agreed: Vec<(String, String)>,
        /// How alike the model reads their meaning (the cosine of their vectors), when both
        /// have one: the evidence of a duplicate said in other words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        meaning: Option<f64>,
    },
    /// The same subject with different claims, as `(first's, second's)`.
    Conflict {
        memories: [Subject; 2],
        similarity: f64,
        claims: Vec<(String, String)>,
        /// What both are about, as read from their claims.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        subject: Vec<String>,
    },
    /// They read as one statement but hold something apart (`claims`, as `(first's,
    /// second's)`): a duplicate or a conflict, which the words cannot tell — the person is
    /// asked, and offered merge and supersede alike.
    SameSubject {
        memories: [Subject; 2],
        similarity: f64,
        claims: Vec<(String, String)>,
        /// What both are about, as read from their claims.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        subject: Vec<String>,
        /// What the person's own agent said of the pair, when it was asked about these very
        /// texts (`crate::ask`): shown beside the local evidence; it changes nothing by itself.
        #[serde(skip_serializing_if = "Option::is_none")]
        agent: Option<crate::ask::verdict::AgentVerdict>,
    },
    /// A project memory naming paths no longer in its repository.
    Stale {
        memory: Subject,
        missing: Vec<MissingPath>,
    },
    /// Its `expires:` day has come.
    Expired { memory: Subject, on: NaiveDate },
    /// No agent was given or fetched it for `days` days while others of its scope were used.
    Unused {
        memory: Subject,
        last_used: Option<DateTime<Utc>>,
        days: u64,
    },
    /// A distill proposal waiting for a person's accept or reject (DESIGN §14).
    Proposal(Box<crate::distill::Proposal>),
    /// An agent proposed a rule for the memory (DESIGN §16): off until a person turns it on.
    RuleProposed {
        memory: Subject,
        rule: ambry_store::memory::Enforce,
    },
    /// A team memory that arrived or changed through git since this person last looked at it
    /// (DESIGN §15): it is given to agents (it came through the team's review); `before` is the
    /// text they saw, empty for a new one.
    ChangedByTeam { memory: Subject, before: String },
    /// A session held the memory and a later tool call did what it says not to (DESIGN §16):
    /// the calls as evidence, and the rule to turn on (the memory's own, or one read from it).
    Ignored {
        memory: Subject,
        session_id: String,
        agent: String,
        calls: Vec<ambry_compose::enforce::IgnoredCall>,
        /// Sessions besides this one where the same happened.
        #[serde(default)]
        other_sessions: usize,
        rule: ambry_store::memory::Enforce,
        /// Whether `rule` is the memory's own (turned on as it is) or read from its text (saved
        /// with it once the person says so).
        own_rule: bool,
    },
    /// An agent had to fetch it because the gate left it out, and it does not say `when` it is
    /// needed (DESIGN §5): the fetches, newest first, each with the prompt it answered — the
    /// first `when` phrases to give it.
    NeedsWhen {
        memory: Subject,
        fetches: Vec<needs_when::MissedFetch>,
        /// Misses besides those shown.
        #[serde(default)]
        more: usize,
    },
    /// Changed on two machines (personal sync, DESIGN §15): the version kept in the file and
    /// the other one, archived; merge them or keep one.
    ChangedOnTwoMachines(Box<ambry_sync::sync::SyncConflict>),
}

impl Finding {
    /// The memories the finding is about.
    pub fn names(&self) -> Vec<(Scope, &str)> {
        match self {
            Finding::Duplicate { memories, .. }
            | Finding::Conflict { memories, .. }
            | Finding::SameSubject { memories, .. } => memories
                .iter()
                .map(|m| (m.scope, m.name.as_str()))
                .collect(),
            Finding::Stale { memory, .. }
            | Finding::Expired { memory, .. }
            | Finding::Unused { memory, .. }
            | Finding::RuleProposed { memory, .. }
            | Finding::ChangedByTeam { memory, .. }
            | Finding::Ignored { memory, .. }
            | Finding::NeedsWhen { memory, .. } => {
                vec![(memory.scope, memory.name.as_str())]
            }
            Finding::Proposal(p) => {
                let mut names = vec![(p.scope, p.name.as_str())];
                names.extend(p.target.as_deref().map(|t| (p.scope, t)));
                names
            }
            Finding::ChangedOnTwoMachines(c) => {
                c.scope.zip(c.name.as_deref()).into_iter().collect()
            }
        }
    }
}

/// A memory's unit vector of the configured model, when it has a current one.
pub type VectorOf<'a> = &'a dyn Fn(&Memory) -> Option<Vec<f32>>;

/// What the unused finding needs: each memory's last use by an agent (an injection or a fetch),
/// keyed (scope, project slug or "", name), and how many days without one count as unused.
pub struct AgentUse<'a> {
    pub now: DateTime<Utc>,
    pub days: u64,
    pub last: &'a HashMap<(Scope, String, String), DateTime<Utc>>,
}

/// The most duplicate and conflict pairs one review lists. A store of near-identical memories
/// (one template filled in thousands of times) makes nearly every pair a duplicate: judging them
/// all took minutes and gigabytes, and an inbox of millions of pairs helps nobody. The person
/// works through the closest; the next closest show up after.
pub const PAIR_FINDINGS_MAX: usize = 500;

/// The review inbox of `store`'s view on `today`, judged on words only, without usage.
pub fn review(store: &Store, today: NaiveDate) -> Result<Vec<Finding>, StoreError> {
    review_with(store, today, &|_| None, None)
}

/// The review inbox of `store`'s view on `today`: pairs within a scope, and project memories
/// restating or contradicting user ones, judged on words and on the vectors `vector_of` gives
/// (a pair where either has none is judged on words); with `agent_use`, memories no agent used
/// for that long; a memory kept as it reads now, or retired, is quiet.
pub fn review_with(
    store: &Store,
    today: NaiveDate,
    vector_of: VectorOf<'_>,
    agent_use: Option<&AgentUse<'_>>,
) -> Result<Vec<Finding>, StoreError> {
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
    for m in &memories {
        if let Some(rule) = m
            .lifecycle
            .enforce
            .as_ref()
            .filter(|r| r.status == ambry_store::memory::RuleStatus::Proposed)
        {
            findings.push(Finding::RuleProposed {
                memory: Subject::of(m),
                rule: rule.clone(),
            });
        }
    }
    let open: Vec<&Memory> = memories
        .iter()
        .filter(|m| !m.is_retired(Some(today)))
        .collect();
    let sides: Vec<Side> = open.iter().map(|m| Side::of(m)).collect();
    let vectors: Vec<Option<Vec<f32>>> = open.iter().map(|m| vector_of(m)).collect();
    let terms: Vec<_> = sides.iter().map(Side::terms).collect();
    // Only the pairs that can reach the same-subject threshold, closest first, until the inbox
    // holds enough of them; then shown in the order of every pair.
    let mut pair_findings: Vec<((usize, usize), Finding)> = Vec::new();
    let mut candidates = candidates::candidate_pairs(&terms, &vectors);
    // Rival tools far apart in words and meaning are judged too (after every closer pair).
    let tools: Vec<_> = sides.iter().map(|s| rival::tools_named(s.text())).collect();
    let close: std::collections::HashSet<(usize, usize)> =
        candidates.iter().map(|(i, j, _)| (*i, *j)).collect();
    candidates.extend(
        rival::candidates::rival_tool_pairs(&tools)
            .into_iter()
            .filter(|pair| !close.contains(pair))
            .map(|(i, j)| (i, j, 0.0)),
    );
    let candidates = candidates::closest_first(candidates);
    for (i, j, _) in candidates {
        if pair_findings.len() == PAIR_FINDINGS_MAX {
            tracing::warn!(
                "review: over {PAIR_FINDINGS_MAX} pairs of memories look alike; the inbox shows the \
                 closest {PAIR_FINDINGS_MAX}"
            );
            break;
        }
        let (a, b) = (open[i], open[j]);
        if !worth_judging(a, b) {
            continue;
        }
        let cosine = match (&vectors[i], &vectors[j]) {
            (Some(x), Some(y)) => Some(f64::from(ambry_rank::embed::cosine(x, y))),
            _ => None,
        };
        let judged = judge(&sides[i], &sides[j], cosine);
        let similarity = judged.similarity;
        let (subject, agreed) = judged
            .claims
            .map(|c| (c.subject, c.agreed))
            .unwrap_or_default();
        let finding = match judged.verdict {
            Some(Verdict::Conflict(claims)) => Finding::Conflict {
                memories: [Subject::of(a), Subject::of(b)],
                similarity,
                claims,
                subject,
            },
            Some(Verdict::Duplicate) => Finding::Duplicate {
                memories: [Subject::of(a), Subject::of(b)],
                similarity,
                subject,
                agreed,
                meaning: cosine,
            },
            Some(Verdict::Uncertain(claims)) => Finding::SameSubject {
                memories: [Subject::of(a), Subject::of(b)],
                similarity,
                claims,
                subject,
                agent: None,
            },
            None => continue,
        };
        pair_findings.push(((i, j), finding));
    }
    pair_findings.sort_by_key(|(pair, _)| *pair);
    findings.extend(pair_findings.into_iter().map(|(_, finding)| finding));
    if let Some(usage) = agent_use {
        findings.extend(unused(store, &open, usage));
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

/// Whether the inbox judges the pair at all: a user memory restating another user memory, a
/// project memory restating either — the same name in both scopes is shadowing, not
/// duplication — and not once a person kept both as they read now.
fn worth_judging(a: &Memory, b: &Memory) -> bool {
    let shadowing = a.name == b.name && a.scope != b.scope;
    let kept_both = a.reviewed_as_is() && b.reviewed_as_is();
    !shadowing && !kept_both
}

/// The claims on which `a` and `b` disagree, when the review inbox lists them as a conflict or
/// asks whether they are one (the same judgement and the same quiet rules): what compose needs to never put two silent
/// contradictions into one context (DESIGN §5). `cosine`: of their vectors, when both have one
/// of the configured model.
pub fn known_conflict(
    a: &Memory,
    b: &Memory,
    cosine: Option<f64>,
    today: NaiveDate,
    sides: &std::sync::Mutex<sides::SideCache>,
) -> Option<Vec<(String, String)>> {
    if a.is_retired(Some(today)) || b.is_retired(Some(today)) || !worth_judging(a, b) {
        return None;
    }
    let (side_a, side_b) = {
        let mut sides = sides.lock().unwrap_or_else(|e| e.into_inner());
        (sides.side(a), sides.side(b))
    };
    match judge(&side_a, &side_b, cosine).verdict {
        // Asked about ("duplicate or conflict?") is not settled either: the agent is told too.
        Some(Verdict::Conflict(claims)) | Some(Verdict::Uncertain(claims)) => Some(claims),
        _ => None,
    }
}

/// Memories older than the window that no agent used in it, in scopes where some other memory
/// was used in it (a scope nobody worked in says nothing about its memories).
fn unused(store: &Store, open: &[&Memory], usage: &AgentUse<'_>) -> Vec<Finding> {
    let since = usage.now - chrono::Duration::days(usage.days as i64);
    let slug = store.project().map(|p| p.slug.clone()).unwrap_or_default();
    let key = |m: &Memory| {
        let project = match m.scope {
            Scope::Team | Scope::Project => slug.clone(),
            Scope::User => String::new(),
        };
        (m.scope, project, m.name.clone())
    };
    let scope_in_use = |scope: Scope| {
        open.iter()
            .filter(|m| m.scope == scope)
            .any(|m| usage.last.get(&key(m)).is_some_and(|at| *at >= since))
    };
    let in_use = [Scope::User, Scope::Team, Scope::Project].map(scope_in_use);
    let index = |scope: Scope| match scope {
        Scope::User => 0,
        Scope::Team => 1,
        Scope::Project => 2,
    };
    open.iter()
        .filter(|m| in_use[index(m.scope)])
        .filter(|m| !m.reviewed_as_is())
        // A memory younger than the window has not had its chance yet.
        .filter(|m| m.created.is_some_and(|c| c <= since))
        .filter_map(|m| {
            let last = usage.last.get(&key(m)).copied();
            (last.is_none_or(|at| at < since)).then(|| Finding::Unused {
                memory: Subject::of(m),
                last_used: last,
                days: usage.days,
            })
        })
        .collect()
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
        .save_with_keys(scope, MemoryDraft::from(&m), &[("reviewed", &value)], now)?
        .memory)
}

/// A version the archive holds that an action replaced or removed: restoring it (as the
/// archive's restore does) undoes that part of the action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Replaced {
    pub scope: Scope,
    pub name: String,
    pub version: String,
}

impl Replaced {
    /// The version an archived file at `path` is.
    fn at(scope: Scope, name: &str, path: &std::path::Path) -> Option<Replaced> {
        let file = path.file_name()?.to_string_lossy();
        let (_, version, _) = archive::parse_version_file_name(&file)?;
        Some(Replaced {
            scope,
            name: name.to_string(),
            version,
        })
    }
}

/// What a supersede or a merge wrote, and the versions that undo it.
#[derive(Debug, Clone, Serialize)]
pub struct Acted {
    pub memory: Memory,
    /// Restored together, they bring back every memory the action changed as it was.
    pub undo: Vec<Replaced>,
}

/// Supersede: `name` is replaced by `by` (which must exist in this view) and no longer injected.
pub fn supersede(
    store: &Store,
    scope: Scope,
    name: &str,
    by: &str,
    now: DateTime<Utc>,
) -> Result<Acted, StoreError> {
    if name == by {
        return Err(StoreError::InvalidField {
            field: "superseded_by",
            reason: "a memory cannot supersede itself".into(),
        });
    }
    store.get(None, by)?;
    let m = store.get(Some(scope), name)?;
    let saved =
        store.save_with_keys(scope, MemoryDraft::from(&m), &[("superseded_by", by)], now)?;
    let undo = saved
        .archived
        .as_deref()
        .and_then(|p| Replaced::at(scope, name, p))
        .into_iter()
        .collect();
    Ok(Acted {
        memory: saved.memory,
        undo,
    })
}

/// The person's merged text: `body` (`None`: the kept body with the other's sentences it does
/// not say taken in, never a sentence both have twice) and `description` (`None`: the kept
/// one's).
#[derive(Debug, Clone, Default)]
pub struct MergeText {
    pub body: Option<String>,
    pub description: Option<String>,
}

/// Merge: `into` takes the merged text and records `merged_from`; `from` is forgotten
/// (archived). Both originals are in the archive afterwards, and `undo` names them.
pub fn merge(
    store: &Store,
    into: (Scope, &str),
    from: (Scope, &str),
    text: MergeText,
    now: DateTime<Utc>,
) -> Result<Acted, StoreError> {
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
    let mut draft = MemoryDraft::from(&target);
    draft.body = text
        .body
        .unwrap_or_else(|| sentences::merged_body(&target.body, &source.body));
    if let Some(description) = text.description {
        draft.description = description;
    }
    let list = format!("[{}]", merged_from.join(", "));
    let saved = store.save_with_keys(into.0, draft, &[("merged_from", &list)], now)?;
    let forgotten = store.forget(from.0, from.1, now)?;
    let mut undo: Vec<Replaced> = saved
        .archived
        .as_deref()
        .and_then(|p| Replaced::at(into.0, into.1, p))
        .into_iter()
        .collect();
    undo.push(Replaced {
        scope: from.0,
        name: forgotten.name,
        version: forgotten.version,
    });
    Ok(Acted {
        memory: saved.memory,
        undo,
    })
}

/// What a merge of `from` into `into` opens with: `into`'s body and description as they are,
/// and `from`'s sentences that body does not say.
pub fn merge_draft(
    store: &Store,
    into: (Scope, &str),
    from: (Scope, &str),
) -> Result<sentences::MergeDraft, StoreError> {
    let target = store.get(Some(into.0), into.1)?;
    let source = store.get(Some(from.0), from.1)?;
    Ok(sentences::merge_draft(
        &target.body,
        &target.description,
        &source.body,
    ))
}

#[cfg(test)]
mod tests;
