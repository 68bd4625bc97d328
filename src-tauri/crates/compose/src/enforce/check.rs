//! Which rules catch a tool call, and what the agent is told.
//!
//! Owns: compiling rules once per process (`RuleBook`, keyed by what a rule says, so an edited
//! rule is compiled again and an unchanged one never is), finding the rules in scope that
//! catch a call (only rules that are on, of memories that are not retired), and the text the
//! model reads: for `deny`, why the call was refused (the memory's name, scope and body); for
//! `remind`, the memory added before the call runs.
//! Deliberately does not: read the disk, consult the ledger or speak a hook format.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::ToolCall;
use ambry_rank::rank::corpus::DocTerms;
use ambry_store::memory::{Enforce, Memory, Rule, RuleAction, RuleError, RuleStatus, Scope};

/// What a rule says, apart from whether it is on: tools, pattern, action.
type RuleText = (Vec<String>, String, String);

/// Compiled rules by what they say. A process checks the same few rules on every call.
#[derive(Debug, Default)]
pub struct RuleBook {
    compiled: HashMap<RuleText, Result<Arc<Rule>, RuleError>>,
}

/// Distinct rules kept compiled; past this the book starts over (rules are few; this bounds a
/// store whose rules keep changing).
const BOOK_MAX: usize = 4_096;

impl RuleBook {
    pub fn rule(&mut self, enforce: &Enforce) -> Result<Arc<Rule>, RuleError> {
        let key = (
            enforce.tools.clone(),
            enforce.pattern.clone(),
            enforce.action.clone(),
        );
        if let Some(found) = self.compiled.get(&key) {
            return found.clone();
        }
        if self.compiled.len() >= BOOK_MAX {
            self.compiled.clear();
        }
        let compiled = enforce.compile().map(Arc::new);
        self.compiled.insert(key, compiled.clone());
        compiled
    }
}

/// A rule that caught a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caught {
    pub scope: Scope,
    pub name: String,
    pub path: PathBuf,
    pub action: RuleAction,
}

/// A rule in scope that does not compile (a hand edit): skipped, and said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenRule {
    pub scope: Scope,
    pub name: String,
    pub error: RuleError,
}

/// The rules among `docs` (a corpus: shadowing already applied) that catch `call`, and those
/// that could not be checked. Rules that are off or proposed, and retired memories, catch nothing.
pub fn caught<'a>(
    docs: impl IntoIterator<Item = &'a Arc<DocTerms>>,
    call: &ToolCall,
    book: &mut RuleBook,
    today: NaiveDate,
) -> (Vec<Caught>, Vec<BrokenRule>) {
    let mut caught = Vec::new();
    let mut broken = Vec::new();
    for doc in docs {
        let Some(enforce) = doc.rule.as_deref() else {
            continue;
        };
        if enforce.status != RuleStatus::On || doc.retiring.retirement(Some(today)).is_some() {
            continue;
        }
        match book.rule(enforce) {
            Ok(rule) if rule.covers(&call.tool) && rule.pattern.is_match(&call.input) => caught
                .push(Caught {
                    scope: doc.scope,
                    name: doc.name.clone(),
                    path: doc.path.clone(),
                    action: rule.action,
                }),
            Ok(_) => {}
            Err(error) => broken.push(BrokenRule {
                scope: doc.scope,
                name: doc.name.clone(),
                error,
            }),
        }
    }
    // Deny first, then by scope and name: the same call gets the same answer every time.
    caught.sort_by(|a, b| {
        (a.action != RuleAction::Deny, a.scope, &a.name).cmp(&(
            b.action != RuleAction::Deny,
            b.scope,
            &b.name,
        ))
    });
    (caught, broken)
}

/// What the agent is told about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// No rule caught the call: the hook prints nothing.
    #[default]
    None,
    Deny,
    Remind,
}

/// One memory whose rule acted on the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActedRule {
    pub scope: Scope,
    pub name: String,
    pub action: RuleAction,
}

/// The answer to a `PreToolUse` call.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolVerdict {
    pub decision: Decision,
    /// For `deny`, the reason the model reads; for `remind`, what is added to the context.
    pub text: String,
    /// The memories whose rules acted.
    pub rules: Vec<ActedRule>,
    /// Rules skipped (they do not compile) and passing problems, said on stderr.
    pub notes: Vec<String>,
}

/// Bytes of one memory's body the model reads in a refusal or a reminder: both agents pass a
/// hook's answer whole well past this (docs/agents.md), and a rule's memory is a correction,
/// not a manual.
const BODY_SHOWN_MAX: usize = 3_000;

/// Memories named in one answer at most (the rest are counted).
const MEMORIES_SHOWN_MAX: usize = 3;

/// The verdict for a call that `denied` memories refuse, or failing that `reminded` ones
/// remind of (those not yet reminded in this context).
pub fn verdict(call: &ToolCall, denied: &[Memory], reminded: &[Memory]) -> ToolVerdict {
    let acted = |memories: &[Memory], action| {
        memories
            .iter()
            .map(|m| ActedRule {
                scope: m.scope,
                name: m.name.clone(),
                action,
            })
            .collect()
    };
    if !denied.is_empty() {
        let mut text = format!(
            "Ambry refused this {} call: it does what the person's memory below says not to do \
             (the memory carries a rule the person turned on so this is not repeated).\n",
            call.tool
        );
        push_memories(&mut text, denied);
        text.push_str(
            "\nDo what the memory says instead. If it does not apply here, say so to the person: \
             only they can change the rule.",
        );
        return ToolVerdict {
            decision: Decision::Deny,
            text,
            rules: acted(denied, RuleAction::Deny),
            notes: Vec::new(),
        };
    }
    if !reminded.is_empty() {
        let mut text = format!(
            "<ambry-memory>\nBefore this {} call, the person's memory applies:\n",
            call.tool
        );
        push_memories(&mut text, reminded);
        text.push_str("</ambry-memory>\n");
        return ToolVerdict {
            decision: Decision::Remind,
            text,
            rules: acted(reminded, RuleAction::Remind),
            notes: Vec::new(),
        };
    }
    ToolVerdict::default()
}

fn push_memories(text: &mut String, memories: &[Memory]) {
    for m in memories.iter().take(MEMORIES_SHOWN_MAX) {
        text.push_str(&format!(
            "\n## {} ({} memory) — {}\n",
            m.name, m.scope, m.description
        ));
        let body = m.body.trim_end();
        if body.len() > BODY_SHOWN_MAX {
            let cut = body.floor_char_boundary(BODY_SHOWN_MAX);
            text.push_str(&body[..cut]);
            text.push_str(" …\n");
        } else {
            text.push_str(body);
            text.push('\n');
        }
    }
    if memories.len() > MEMORIES_SHOWN_MAX {
        text.push_str(&format!(
            "\n(and {} more memories with the same rule)\n",
            memories.len() - MEMORIES_SHOWN_MAX
        ));
    }
}
