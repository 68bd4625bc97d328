//! What a distill run or a proposal action can fail with.
//!
//! Owns: `DistillError` and its stable codes.
//! Deliberately does not: format for a front end (`crate::error::report` does that).

use crate::error::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum DistillError {
    #[error("distill is switched off in config.toml ([distill] enabled = false)")]
    Disabled,
    #[error("a distill of {scope} is already running; wait for it to finish")]
    Busy { scope: String },
    #[error("no indexed session matches {what}; run `ambry sessions index` first")]
    NoSessions { what: String },
    #[error("the answer of {agent} for session {session} is not a valid proposal list: {reason}; nothing was written for that session")]
    MalformedAnswer {
        agent: String,
        session: String,
        reason: String,
    },
    #[error("the answer of {agent} for session {session} is {bytes} bytes, over the {limit}-byte limit; nothing was written for that session")]
    AnswerTooLarge {
        agent: String,
        session: String,
        bytes: usize,
        limit: usize,
    },
    #[error("cannot start {program}: {reason} (set [distill] {key} in config.toml to the agent's command)")]
    AgentMissing {
        program: String,
        key: &'static str,
        reason: String,
    },
    #[error("{agent} failed for session {session} ({status}): {stderr}")]
    AgentFailed {
        agent: String,
        session: String,
        status: String,
        stderr: String,
    },
    #[error("{agent} did not answer for session {session} within {secs} s; it was stopped")]
    AgentTimedOut {
        agent: String,
        session: String,
        secs: u64,
    },
    #[error("no pending proposal has the id {id}; `ambry memory review` lists them")]
    UnknownProposal { id: String },
    #[error("proposal {id} cannot be accepted: {reason}")]
    NotApplicable { id: String, reason: String },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is damaged ({reason}); move it aside to start a fresh one")]
    Damaged { path: String, reason: String },
}

impl DistillError {
    pub(crate) fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        DistillError::Io {
            action,
            path: path.display().to_string(),
            source,
        }
    }
}

impl ErrorCode for DistillError {
    fn code(&self) -> crate::error::Code {
        match self {
            DistillError::Disabled => crate::error::Code::DistillDisabled,
            DistillError::Busy { .. } => crate::error::Code::Busy,
            DistillError::NoSessions { .. } => crate::error::Code::NotFound,
            DistillError::MalformedAnswer { .. } => crate::error::Code::MalformedAnswer,
            DistillError::AnswerTooLarge { .. } => crate::error::Code::AnswerTooLarge,
            DistillError::AgentMissing { .. } => crate::error::Code::AgentMissing,
            DistillError::AgentFailed { .. } => crate::error::Code::AgentFailed,
            DistillError::AgentTimedOut { .. } => crate::error::Code::AgentTimedOut,
            DistillError::UnknownProposal { .. } => crate::error::Code::NotFound,
            DistillError::NotApplicable { .. } => crate::error::Code::NotApplicable,
            DistillError::Io { .. } => crate::error::Code::Io,
            DistillError::Damaged { .. } => crate::error::Code::Damaged,
        }
    }
}
