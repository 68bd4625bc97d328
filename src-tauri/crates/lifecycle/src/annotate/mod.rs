//! `memory distill --annotate` (DESIGN §5, "What a memory is for"; §14): the person's own agent
//! proposes `when` phrases for the memories of a view that do not say when they are needed,
//! batched in one run of the distill child (no hooks, no MCP, no session left behind, secrets
//! masked, a dry run first, the distill budget). Each answer becomes a pending proposal
//! (`Action::When`) that the review lists; accepted, exactly its phrases are written to the
//! memory, nothing else of it.
//!
//! Owns: which memories are sent (live, user or project scope, no `when`, none with a proposal
//! pending; within the budget, the rest left for a later run), the one call, and turning the
//! answer into proposals.
//! Deliberately does not: accept one (`distill::accept` does, as every proposal: refused when
//! the memory changed or gained phrases since, so a person's own phrases are never overwritten
//! by an agent's), spawn processes (`distill::child`), read the clock, write vectors (the
//! workspace does after an accept), or touch team memory (the team writes it, in git).

pub mod prompt;
#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::distill::child::OneCall;
use crate::distill::proposal::ProposalProject;
use crate::distill::{Action, AgentRunner, DistillError, Inbox, Proposal};
use ambry_store::config::DistillAgent;
use ambry_store::memory::{Memory, Scope, ScopeFilter, Store};

/// Most memories one run sends: an answer for them stays far inside the answer's size limit.
pub const MAX_MEMORIES: usize = 40;

/// What an annotate's one call is for, as the agent's errors say it ("claude failed for …").
pub const CALL_NAME: &str = "the memories that do not say when they are needed";

/// What an annotate did, or (dry run) would do.
#[derive(Debug, Clone, Serialize)]
pub struct AnnotateReport {
    pub agent: DistillAgent,
    pub dry_run: bool,
    /// The memories sent (a dry run: that would be sent) in the one call, as `scope/name`.
    pub memories: Vec<String>,
    /// The size of what is sent.
    pub prompt_bytes: usize,
    pub estimated_tokens: u64,
    /// A dry run: the very text that would be sent (secrets masked), to read before paying.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Memories with phrases already proposed and waiting in the review: not sent.
    pub pending: Vec<String>,
    /// Memories left for a later run by the budget.
    pub over_budget: Vec<String>,
    /// Memories sent that the answer said nothing about: sent again next time.
    pub unanswered: Vec<String>,
    /// The proposals this run added to the review inbox.
    pub proposals: Vec<Proposal>,
}

/// Everything an annotate needs.
pub struct AnnotateSetup<'a> {
    /// The agent, the budget, whether it is a dry run.
    pub call: OneCall<'a>,
    /// The view: its user scope and its project's, if any.
    pub store: &'a Store,
    pub inbox: &'a Inbox,
    pub now: DateTime<Utc>,
}

/// The memories of the view that could be annotated: parsed, of the person's own scopes, not
/// retired on `now`'s day, without `when` phrases; in the order of their labels.
fn without_when(store: &Store, now: DateTime<Utc>) -> Result<Vec<Memory>, DistillError> {
    let files = store.list(ScopeFilter::All).map_err(|e| DistillError::Io {
        action: "list memories of",
        path: store.home().root().display().to_string(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let today = Some(now.date_naive());
    let mut out: Vec<Memory> = files
        .into_iter()
        .filter_map(|f| f.parsed.ok())
        .filter(|m| m.scope != Scope::Team)
        .filter(|m| m.lifecycle.when.is_empty() && !m.is_retired(today))
        .collect();
    out.sort_by_key(prompt::label);
    Ok(out)
}

/// Whether pending proposal `p` proposes phrases for `m` of `store`'s view.
pub fn proposes_for(p: &Proposal, store: &Store, scope: Scope, name: &str) -> bool {
    p.action == Action::When
        && p.scope == scope
        && p.target.as_deref() == Some(name)
        && p.belongs_to(store)
}

/// The project a proposal for a memory of `scope` belongs to.
fn project_of(store: &Store, scope: Scope) -> Option<ProposalProject> {
    match scope {
        Scope::User => None,
        _ => store.project().map(|p| ProposalProject {
            slug: p.slug.clone(),
            root: p.root.clone(),
        }),
    }
}

/// The pending proposal saying when `m` is needed.
fn proposal(m: &Memory, when: Vec<String>, setup: &AnnotateSetup<'_>) -> Proposal {
    let mut p = Proposal {
        id: String::new(),
        session_id: String::new(),
        session_source: None,
        agent: setup.call.agent,
        project: project_of(setup.store, m.scope),
        created: setup.now,
        action: Action::When,
        scope: m.scope,
        name: m.name.clone(),
        kind: m.kind.clone(),
        // Shown beside the phrases so the person knows which memory they are for; accept
        // writes none of it.
        description: m.description.clone(),
        body: String::new(),
        target: Some(m.name.clone()),
        source_turns: Vec::new(),
        reason: String::new(),
        enforce: None,
        when,
        target_fingerprint: Some(m.content_fingerprint()),
    };
    p.id = proposal_id(&p);
    p
}

/// A stable id from what the proposal says: the same phrases for the same text are one entry.
fn proposal_id(p: &Proposal) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let slug = p.project.as_ref().map_or("", |x| x.slug.as_str());
    for part in [
        "when",
        slug,
        p.scope.as_str(),
        p.name.as_str(),
        p.target_fingerprint.as_deref().unwrap_or(""),
    ]
    .into_iter()
    .chain(p.when.iter().map(String::as_str))
    {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let digest = h.finalize();
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("p-{hex}")
}

/// Sends the view's memories without `when` (none with a proposal pending) in one call within
/// the budget, and adds a proposal for each memory the agent gave phrases (a dry run: counts and
/// shows, sends nothing).
pub fn annotate(
    setup: &AnnotateSetup<'_>,
    runner: &dyn AgentRunner,
) -> Result<AnnotateReport, DistillError> {
    let pending = setup.inbox.proposals()?;
    let mut report = AnnotateReport {
        agent: setup.call.agent,
        dry_run: setup.call.dry_run,
        memories: Vec::new(),
        prompt_bytes: 0,
        estimated_tokens: 0,
        prompt: None,
        pending: Vec::new(),
        over_budget: Vec::new(),
        unanswered: Vec::new(),
        proposals: Vec::new(),
    };
    let mut sent: Vec<Memory> = Vec::new();
    let mut sections: Vec<String> = Vec::new();
    let mut bytes = prompt::build(&[]).len();
    for m in without_when(setup.store, setup.now)? {
        let label = prompt::label(&m);
        if pending
            .iter()
            .any(|p| proposes_for(p, setup.store, m.scope, &m.name))
        {
            report.pending.push(label);
            continue;
        }
        let section = prompt::render_memory(&m);
        let with = bytes + section.len();
        let fits = sent.len() < MAX_MEMORIES && setup.call.fits(with, sent.is_empty());
        if !fits {
            report.over_budget.push(label);
            continue;
        }
        bytes = with;
        sections.push(section);
        report.memories.push(label);
        sent.push(m);
    }
    if sent.is_empty() {
        return Ok(report);
    }
    let called = setup.call.make(
        runner,
        CALL_NAME,
        prompt::build(&sections),
        &prompt::answer_schema(sent.len()),
    )?;
    report.prompt_bytes = called.prompt_bytes;
    report.estimated_tokens = called.estimated_tokens;
    report.prompt = called.shown;
    let Some(answer) = called.answer else {
        return Ok(report);
    };
    let answered = prompt::check_answer(&answer, &report.memories)
        .map_err(|p| p.into_error(setup.call.agent, CALL_NAME))?;
    let proposals: Vec<Proposal> = answered
        .iter()
        .map(|(index, when)| proposal(&sent[*index], when.clone(), setup))
        .collect();
    report.unanswered = report
        .memories
        .iter()
        .enumerate()
        .filter(|(i, _)| !answered.iter().any(|(index, _)| index == i))
        .map(|(_, label)| label.clone())
        .collect();
    report.proposals = setup.inbox.add_proposals(&proposals)?;
    Ok(report)
}
