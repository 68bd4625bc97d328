//! What the person's agent says of a pair: the verdict and its one-sentence reason, as a
//! finding carries it and the verdicts file keeps it.
//!
//! Owns: the shapes only. Deliberately does not: ask, keep or attach (the rest of `ask` does).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use ambry_store::config::DistillAgent;

/// What the agent says a pair is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PairVerdict {
    Duplicate,
    Conflict,
    Neither,
}

impl PairVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            PairVerdict::Duplicate => "duplicate",
            PairVerdict::Conflict => "conflict",
            PairVerdict::Neither => "neither",
        }
    }
}

/// The agent's verdict on a pair, as a finding shows it beside the local evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentVerdict {
    pub verdict: PairVerdict,
    /// One sentence: what decided it.
    pub reason: String,
    /// Which agent said so.
    pub agent: DistillAgent,
    pub at: DateTime<Utc>,
}
