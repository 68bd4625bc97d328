//! A rule run over the past (DESIGN §16): every tool call of the indexed sessions it would have
//! caught, so a person sees what it would block — wrongly too — before turning it on.
//!
//! Owns: reading a transcript's tool turns as calls and matching them against one rule.
//! Deliberately does not: choose the sessions (the workspace passes those of the memory's
//! scope) or read the index.

use serde::Serialize;

use super::ToolCall;
use ambry_sessions::sessions::{SourceKind, Transcript};
use ambry_store::memory::Rule;

/// One past call a rule would have caught.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PastCall {
    pub session_id: String,
    pub source: SourceKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// When the call was made, as the transcript says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    pub tool: String,
    pub input: String,
}

/// A backtest's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Backtest {
    pub name: String,
    pub scope: ambry_store::memory::Scope,
    /// Sessions read and tool calls seen in them.
    pub sessions: usize,
    pub calls: usize,
    pub caught: Vec<PastCall>,
    /// Sessions that could not be read (a moved file), said rather than skipped in silence.
    pub notes: Vec<String>,
}

/// The calls of `transcript` that `rule` catches, in order; also counts the calls it read.
pub fn backtest(rule: &Rule, transcript: &Transcript, calls_read: &mut usize) -> Vec<PastCall> {
    let mut out = Vec::new();
    for turn in transcript.turns.iter().filter(|t| t.role == "tool") {
        let Some(call) = ToolCall::from_transcript(&turn.text) else {
            continue;
        };
        *calls_read += 1;
        if rule.covers(&call.tool) && rule.pattern.is_match(&call.input) {
            out.push(PastCall {
                session_id: transcript.meta.session_id.clone(),
                source: transcript.meta.source,
                title: transcript.meta.title.clone(),
                cwd: transcript.meta.cwd.clone(),
                ts: turn.ts.clone(),
                tool: call.tool,
                input: call.input,
            });
        }
    }
    out
}
