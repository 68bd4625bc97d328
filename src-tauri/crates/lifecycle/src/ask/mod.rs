//! The person's own agent as a judge of the pairs the local judge cannot settle (DESIGN §14,
//! "Judging pairs"): `memory review --ask claude|codex` and the Review view's button send the
//! review's "same subject — duplicate or conflict?" pairs, batched in one run of the distill
//! child (no hooks, no MCP, no session left behind, secrets masked, a dry run first, the distill
//! budget), and each verdict is kept by the pair's content hash and shown beside the finding.
//!
//! Owns: which pairs are asked about (the uncertain ones without a kept verdict, within the
//! budget), the one call, keeping the verdicts (`cache`), and attaching kept verdicts to the
//! findings of a review.
//! Deliberately does not: change a memory (the person still merges, keeps both or supersedes),
//! retune the local judge, spawn processes (`distill::child`), or read the clock.

pub mod cache;
pub mod prompt;
#[cfg(test)]
mod tests;
pub mod verdict;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::distill::child::OneCall;
use crate::distill::{AgentRunner, DistillError};
use crate::lifecycle::{Finding, Subject};
use ambry_store::config::DistillAgent;
pub use cache::{pair_key, Kept, Verdicts};
pub use prompt::Uncertain;
pub use verdict::{AgentVerdict, PairVerdict};

/// Most pairs one run sends: an answer for them stays far inside the answer's size limit.
pub const MAX_PAIRS: usize = 40;

/// One pair as a report names it.
#[derive(Debug, Clone, Serialize)]
pub struct AskedPair {
    /// `scope/name` of both.
    pub memories: [String; 2],
    pub key: String,
    /// The agent's verdict, once it gave one (a dry run: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<AgentVerdict>,
}

/// What an ask did, or (dry run) would do.
#[derive(Debug, Clone, Serialize)]
pub struct AskReport {
    pub agent: DistillAgent,
    pub dry_run: bool,
    /// The pairs sent (a dry run: that would be sent) in the one call.
    pub pairs: Vec<AskedPair>,
    /// The size of what is sent.
    pub prompt_bytes: usize,
    pub estimated_tokens: u64,
    /// A dry run: the very text that would be sent (secrets masked), to read before paying.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Uncertain pairs answered by a kept verdict: not sent.
    pub cached: usize,
    /// Uncertain pairs left for a later run by the budget.
    pub over_budget: Vec<[String; 2]>,
    /// Pairs sent that the answer said nothing about: asked again next time.
    pub unanswered: Vec<[String; 2]>,
}

fn label(s: &Subject) -> String {
    format!("{}/{}", s.scope, s.name)
}

/// The uncertain pairs of a review's findings.
pub fn uncertain(findings: &[Finding]) -> Vec<Uncertain> {
    findings
        .iter()
        .filter_map(|f| match f {
            Finding::SameSubject {
                memories, claims, ..
            } => Some(Uncertain {
                key: pair_key(&memories[0], &memories[1]),
                memories: memories.clone(),
                claims: claims.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// Puts each kept verdict beside its finding (a pair whose memories changed since has another
/// key, so none).
pub fn attach(findings: &mut [Finding], kept: &std::collections::BTreeMap<String, Kept>) {
    if kept.is_empty() {
        return;
    }
    for f in findings {
        if let Finding::SameSubject {
            memories, agent, ..
        } = f
        {
            *agent = kept
                .get(&pair_key(&memories[0], &memories[1]))
                .map(|k| k.verdict.clone());
        }
    }
}

/// Everything an ask needs besides the findings.
pub struct AskSetup<'a> {
    /// The agent, the budget, whether it is a dry run.
    pub call: OneCall<'a>,
    pub verdicts: &'a Verdicts,
    pub now: DateTime<Utc>,
}

/// What an ask's one call is for, as the agent's errors say it ("claude failed for …").
pub const CALL_NAME: &str = "the review's uncertain pairs";

/// Sends the uncertain pairs of `findings` without a kept verdict, in one call within the
/// budget, and keeps what the agent says of each (a dry run: counts and shows, sends nothing).
pub fn ask(
    setup: &AskSetup<'_>,
    findings: &[Finding],
    runner: &dyn AgentRunner,
) -> Result<AskReport, DistillError> {
    let kept = setup.verdicts.read()?;
    let mut report = AskReport {
        agent: setup.call.agent,
        dry_run: setup.call.dry_run,
        pairs: Vec::new(),
        prompt_bytes: 0,
        estimated_tokens: 0,
        prompt: None,
        cached: 0,
        over_budget: Vec::new(),
        unanswered: Vec::new(),
    };
    let mut sent: Vec<Uncertain> = Vec::new();
    let mut sections: Vec<String> = Vec::new();
    let mut bytes = prompt::build(&[]).len();
    for pair in uncertain(findings) {
        if kept.contains_key(&pair.key) || sent.iter().any(|p| p.key == pair.key) {
            report.cached += usize::from(kept.contains_key(&pair.key));
            continue;
        }
        let section = prompt::render_pair(sent.len() + 1, &pair);
        let with = bytes + section.len();
        let fits = sent.len() < MAX_PAIRS && setup.call.fits(with, sent.is_empty());
        if !fits {
            report
                .over_budget
                .push(pair.memories.clone().map(|m| label(&m)));
            continue;
        }
        bytes = with;
        sections.push(section);
        sent.push(pair);
    }
    report.pairs = sent
        .iter()
        .map(|p| AskedPair {
            memories: p.memories.clone().map(|m| label(&m)),
            key: p.key.clone(),
            answer: None,
        })
        .collect();
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
    let verdicts = prompt::check_answer(&answer, sent.len())
        .map_err(|p| p.into_error(setup.call.agent, CALL_NAME))?;
    let mut keep = Vec::new();
    for (index, verdict, reason) in verdicts {
        let given = AgentVerdict {
            verdict,
            reason,
            agent: setup.call.agent,
            at: setup.now,
        };
        report.pairs[index].answer = Some(given.clone());
        keep.push((
            sent[index].key.clone(),
            Kept {
                names: report.pairs[index].memories.clone(),
                verdict: given,
            },
        ));
    }
    report.unanswered = report
        .pairs
        .iter()
        .filter(|p| p.answer.is_none())
        .map(|p| p.memories.clone())
        .collect();
    setup.verdicts.add(keep)?;
    Ok(report)
}
