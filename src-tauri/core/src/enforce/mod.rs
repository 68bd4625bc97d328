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
pub use check::{caught, verdict, Decision, RuleBook, ToolVerdict};
#[cfg(feature = "internals")] // reached only by the integration tests, benches and fuzz targets
pub use check::{Caught};
pub use ignored::{ignored_calls, IgnoredCall};
