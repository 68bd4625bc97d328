//! What a distill run or a proposal action can fail with.
//!
//! Owns: `DistillError` and its stable codes, and `quoted`: the one way a message quotes what
//! another program printed (the agent's stderr, its result text, names from its answer).
//! Deliberately does not: format for a front end (`ambry_store::error::report` does that).

use ambry_store::error::ErrorCode;

/// `session` in the variants below names what the agent's call was for, as a message says it
/// after "for": `session ID` for a distill call, the review's pairs for an ask.
#[derive(Debug, thiserror::Error)]
pub enum DistillError {
    #[error("distill is switched off in config.toml ([distill] enabled = false)")]
    Disabled,
    #[error("a distill of {scope} is already running; wait for it to finish")]
    Busy { scope: String },
    #[error("no indexed session matches {what}; run `ambry sessions index` first")]
    NoSessions { what: String },
    #[error(
        "the answer of {agent} for {session} is not valid: {reason}; nothing was written for it"
    )]
    MalformedAnswer {
        agent: String,
        session: String,
        reason: String,
    },
    #[error("the answer of {agent} for {session} is {bytes} bytes, over the {limit}-byte limit; nothing was written for it")]
    AnswerTooLarge {
        agent: String,
        session: String,
        bytes: usize,
        limit: usize,
    },
    #[error("{agent} printed more than {limit_kib} KiB on its {stream} for {session}; it was stopped there, and nothing was written for it")]
    OutputTooLarge {
        agent: String,
        session: String,
        stream: &'static str,
        limit_kib: u64,
    },
    #[error("the agent ({agent}) could not produce a valid answer for {session} ({tries}){reason}; nothing was written for it")]
    NoValidAnswer {
        agent: String,
        session: String,
        /// `5 tries`, or `its retries` when the client did not say how many.
        tries: String,
        /// `: ` and what the agent said last, or empty.
        reason: String,
    },
    #[error(
        "{agent} was stopped for {session}: ambry was asked to stop; nothing was written for it"
    )]
    Stopped { agent: String, session: String },
    #[error("cannot start {program}: {reason} (set [distill] {key} in config.toml to the agent's command)")]
    AgentMissing {
        program: String,
        key: &'static str,
        reason: String,
    },
    /// Found before anything is planned or sent: the configured program is nowhere here.
    #[error("{program} is not found on PATH, so {agent} cannot run here: install {agent}, or set [distill] {key} in config.toml to its full path")]
    AgentNotFound {
        program: String,
        /// The agent as a person knows it (Claude Code, Codex).
        agent: &'static str,
        key: &'static str,
    },
    #[error("{agent} failed for {session} ({status}): {stderr}")]
    AgentFailed {
        agent: String,
        session: String,
        status: String,
        stderr: String,
    },
    #[error("{agent} did not answer for {session} within {secs} s; it was stopped")]
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

/// `text` as a message may quote it: terminal escape sequences and every control character but
/// newline and tab removed (a carriage return too: it would let later text overwrite earlier),
/// so what another program printed reaches a terminal as text, never as a command to it;
/// trimmed, and at most `max` bytes of it, its end kept (where a failure says why).
pub(crate) fn quoted(text: &str, max: usize) -> String {
    let clean: String = ambry_sessions::sessions::scrub(text)
        .chars()
        .filter(|&c| c != '\r')
        .collect();
    let text = clean.trim();
    if text.len() <= max {
        return text.to_string();
    }
    let start = text.ceil_char_boundary(text.len() - max);
    format!("…{}", &text[start..])
}

impl ErrorCode for DistillError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            DistillError::Disabled => ambry_store::error::Code::DistillDisabled,
            DistillError::Busy { .. } => ambry_store::error::Code::Busy,
            DistillError::NoSessions { .. } => ambry_store::error::Code::NotFound,
            DistillError::MalformedAnswer { .. } => ambry_store::error::Code::MalformedAnswer,
            DistillError::AnswerTooLarge { .. } => ambry_store::error::Code::AnswerTooLarge,
            DistillError::AgentMissing { .. } | DistillError::AgentNotFound { .. } => {
                ambry_store::error::Code::AgentMissing
            }
            DistillError::AgentFailed { .. } => ambry_store::error::Code::AgentFailed,
            DistillError::AgentTimedOut { .. } => ambry_store::error::Code::AgentTimedOut,
            DistillError::OutputTooLarge { .. } => ambry_store::error::Code::AnswerTooLarge,
            DistillError::NoValidAnswer { .. } => ambry_store::error::Code::MalformedAnswer,
            DistillError::Stopped { .. } => ambry_store::error::Code::Stopped,
            DistillError::UnknownProposal { .. } => ambry_store::error::Code::NotFound,
            DistillError::NotApplicable { .. } => ambry_store::error::Code::NotApplicable,
            DistillError::Io { .. } => ambry_store::error::Code::Io,
            DistillError::Damaged { .. } => ambry_store::error::Code::Damaged,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_holds_no_escape_sequence_or_control_character() {
        let printed =
            "\u{1b}]0;owned\u{7}\u{1b}[31merror\u{1b}[0m: bad\rworse\u{8}\n\tnext\u{1b}[2J";
        assert_eq!(quoted(printed, 600), "error: badworse\n\tnext");
        assert_eq!(quoted("  abcdef ", 3), "…def");
        assert_eq!(quoted("ééé", 3), "…é");
    }
}
