//! Memories with teeth (DESIGN §16): an agent's tool call checked against the rules of the
//! memories in scope, where the mistake a memory corrects would happen.
//!
//! Owns: what a tool call is as a rule sees it (`call`), which rules catch a call and what the
//! agent is told (`check`), which past calls a rule would have caught (`backtest`), and which
//! calls contradicted a memory the session held (`ignored`).
//! Deliberately does not: read the rules from disk or hold the ledger (the workspace does), or
//! speak an agent's hook format (`compose::hook` does).

pub mod backtest;
pub mod call;
pub mod check;
pub mod ignored;

pub use backtest::{backtest, Backtest, PastCall};
pub use call::ToolCall;

pub use check::Caught;
pub use check::{caught, verdict, Decision, RuleBook, ToolVerdict};
pub use ignored::{ignored_calls, IgnoredCall};
use serde::{Deserialize, Serialize};

/// A `PreToolUse` call as a hook passes it on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCheck {
    pub call: ToolCall,
    #[serde(default)]
    pub session_id: Option<String>,
    /// claude | codex
    #[serde(default)]
    pub agent: Option<String>,
    /// Record caught calls in the ledger (hooks do; a dry check does not).
    #[serde(default)]
    pub record: bool,
}
