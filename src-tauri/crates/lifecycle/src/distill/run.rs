//! One distill run: which chunks of which sessions are sent (a session already distilled is
//! sent again only from where it grew), the budget that bounds a run, the dry run that only
//! counts, and committing each call's checked proposals with the record of what was sent.
//!
//! Owns: planning and running over already selected transcripts of one view.
//! Deliberately does not: select sessions (the workspace does), spawn processes (`child`),
//! write memories (a proposal is written only when a person accepts it), read the clock.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::child::{AgentCall, AgentRunner};
use super::error::DistillError;
use super::inbox::{turns_hash, Distilled, Inbox};
use super::prompt::{self, NumberedTurn};
use super::proposal::{
    answer_schema, check_answer, CallContext, Proposal, ProposalProject, Refusal,
};
use ambry_sessions::sessions::Transcript;
use ambry_store::config::{DistillAgent, DistillConfig, SessionSource};
use ambry_store::memory::{Memory, Scope, ScopeFilter, Store};

/// One call of the plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedCall {
    pub session_id: String,
    pub first_turn: usize,
    pub last_turn: usize,
    pub prompt_bytes: usize,
    pub estimated_tokens: u64,
    /// Where the session came from: the proposals' `source:` names it.
    #[serde(skip)]
    session_source: SessionSource,
    #[serde(skip)]
    prompt: String,
    #[serde(skip)]
    turns: Vec<NumberedTurn>,
    /// What the session's record says once this call is committed.
    #[serde(skip)]
    record_turns: usize,
    #[serde(skip)]
    record_hash: String,
    #[serde(skip)]
    record_bytes: u64,
}

/// What a run did, or (dry run) would do.
#[derive(Debug, Clone, Serialize)]
pub struct DistillReport {
    pub agent: DistillAgent,
    pub dry_run: bool,
    /// The calls made (dry run: that would be made), within the budget.
    pub calls: Vec<PlannedCall>,
    pub estimated_tokens: u64,
    /// Sessions with nothing new since they were last distilled: not sent.
    pub unchanged: Vec<String>,
    /// Sessions (or their later chunks) left for a later run by the budget.
    pub over_budget: Vec<String>,
    /// Proposals this run added to the review inbox.
    pub proposals: Vec<Proposal>,
    /// Proposals refused one by one (a secret, a bad name, a turn never sent).
    pub refused: Vec<Refusal>,
}

/// Everything a run needs besides the transcripts.
pub struct RunSetup<'a> {
    pub config: &'a DistillConfig,
    pub agent: DistillAgent,
    pub store: &'a Store,
    pub inbox: &'a Inbox,
    pub dry_run: bool,
    pub now: DateTime<Utc>,
    /// Arguments for the client before its own (see `child::codex_servers_off`).
    pub extra_args: Vec<String>,
}

fn live_memories(store: &Store) -> Result<Vec<Memory>, DistillError> {
    let files = store.list(ScopeFilter::All).map_err(|e| DistillError::Io {
        action: "list memories of",
        path: store.home().root().display().to_string(),
        source: std::io::Error::other(e.to_string()),
    })?;
    Ok(files.into_iter().filter_map(|f| f.parsed.ok()).collect())
}

/// Plans and (unless a dry run) makes the calls for `sessions`.
pub fn distill(
    setup: &RunSetup<'_>,
    sessions: &[Transcript],
    runner: &dyn AgentRunner,
) -> Result<DistillReport, DistillError> {
    let memories = live_memories(setup.store)?;
    let existing: Vec<(Scope, String)> =
        memories.iter().map(|m| (m.scope, m.name.clone())).collect();
    let shown = prompt::memories_for_prompt(memories);
    let slug = setup.store.project().map(|p| p.slug.clone());
    let distilled = setup.inbox.distilled()?;
    let mut report = DistillReport {
        agent: setup.agent,
        dry_run: setup.dry_run,
        calls: Vec::new(),
        estimated_tokens: 0,
        unchanged: Vec::new(),
        over_budget: Vec::new(),
        proposals: Vec::new(),
        refused: Vec::new(),
    };
    let mut quiet_records: Vec<(String, Distilled)> = Vec::new();
    for t in sessions {
        let id = &t.meta.session_id;
        let texts: Vec<&str> = t.turns.iter().map(|x| x.text.as_str()).collect();
        let start = match distilled.get(id) {
            Some(d)
                if d.turns <= texts.len()
                    && turns_hash(texts[..d.turns].iter().copied()) == d.hash =>
            {
                d.turns
            }
            _ => 0,
        };
        let sendable: Vec<NumberedTurn> = t.turns[start..]
            .iter()
            .enumerate()
            .filter(|(_, x)| {
                matches!(x.role.as_str(), "user" | "assistant") && !x.text.trim().is_empty()
            })
            .map(|(i, x)| (start + i + 1, x.role.clone(), x.text.clone()))
            .collect();
        let record = |upto: usize| {
            let prefix = &texts[..upto];
            (
                upto,
                turns_hash(prefix.iter().copied()),
                prefix.iter().map(|s| s.len() as u64).sum::<u64>(),
            )
        };
        if sendable.is_empty() {
            report.unchanged.push(id.clone());
            if start < texts.len() {
                let (turns, hash, bytes) = record(texts.len());
                quiet_records.push((
                    id.clone(),
                    Distilled {
                        turns,
                        bytes,
                        hash,
                        at: setup.now,
                    },
                ));
            }
            continue;
        }
        let chunks = prompt::chunks(&sendable, setup.config.chunk_bytes);
        let n_chunks = chunks.len();
        for (i, chunk) in chunks.into_iter().enumerate() {
            let text = prompt::build(
                id,
                t.meta.title.as_deref(),
                slug.as_deref(),
                &shown,
                &chunk,
                texts.len(),
            );
            let estimated = prompt::estimate_tokens(text.len());
            if report.calls.len() >= setup.config.max_calls
                || report.estimated_tokens + estimated > setup.config.max_tokens
            {
                if !report.over_budget.contains(id) {
                    report.over_budget.push(id.clone());
                }
                break;
            }
            let upto = if i + 1 == n_chunks {
                texts.len()
            } else {
                chunk.last().map_or(0, |c| c.0)
            };
            let (record_turns, record_hash, record_bytes) = record(upto);
            report.estimated_tokens += estimated;
            report.calls.push(PlannedCall {
                session_id: id.clone(),
                first_turn: chunk.first().map_or(0, |c| c.0),
                last_turn: chunk.last().map_or(0, |c| c.0),
                prompt_bytes: text.len(),
                estimated_tokens: estimated,
                session_source: t.meta.source,
                prompt: text,
                turns: chunk,
                record_turns,
                record_hash,
                record_bytes,
            });
        }
    }
    if setup.dry_run {
        return Ok(report);
    }
    for (id, record) in quiet_records {
        setup.inbox.commit_call(&[], &id, record)?;
    }
    let schema = answer_schema();
    let project = setup.store.project().map(|p| ProposalProject {
        slug: p.slug.clone(),
        root: p.root.clone(),
    });
    let command = match setup.agent {
        DistillAgent::Claude => &setup.config.claude_command,
        DistillAgent::Codex => &setup.config.codex_command,
    };
    for call in &report.calls {
        let about = format!("session {}", call.session_id);
        let answer = runner.call(&AgentCall {
            agent: setup.agent,
            command,
            prompt: &call.prompt,
            schema: &schema,
            timeout: Duration::from_secs(setup.config.timeout_secs),
            about: &about,
            extra_args: &setup.extra_args,
        })?;
        let context = CallContext {
            agent: setup.agent,
            session_id: &call.session_id,
            session_source: call.session_source,
            turns: &call.turns,
            existing: &existing,
            project: project.clone(),
            has_project: project.is_some(),
        };
        let checked = check_answer(&answer, &context, setup.now)
            .map_err(|p| p.into_error(setup.agent, &about))?;
        setup.inbox.commit_call(
            &checked.proposals,
            &call.session_id,
            Distilled {
                turns: call.record_turns,
                bytes: call.record_bytes,
                hash: call.record_hash.clone(),
                at: setup.now,
            },
        )?;
        report.proposals.extend(checked.proposals);
        report.refused.extend(checked.refused);
    }
    Ok(report)
}
