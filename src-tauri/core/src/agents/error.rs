//! Errors of agent integration: each says which file and what to do.

use crate::error::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("{path} does not parse ({reason}); fix it by hand (Ambry left it untouched)")]
    Unparseable { path: String, reason: String },
    #[error(
        "{path}: `{key}` is {found}, not {expected}; fix it by hand (Ambry left it untouched)"
    )]
    UnexpectedShape {
        path: String,
        key: String,
        expected: &'static str,
        found: String,
    },
    #[error("{path}: `{key}` exists and runs something other than Ambry; rename or remove that entry, then connect again (Ambry left it untouched)")]
    ForeignEntry { path: String, key: String },
    #[error("{path} is a symbolic link; Ambry edits only regular files (edit the file it points to by hand, or replace the link with the file)")]
    NotARegularFile { path: String },
    #[error("{path} is read-only; make it writable to connect (Ambry left it untouched)")]
    ReadOnly { path: String },
    #[error("{path} changed while Ambry was editing it; run the command again")]
    ChangedUnderfoot { path: String },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
}

impl AgentError {
    pub(crate) fn io(
        action: &'static str,
        path: &std::path::Path,
        source: std::io::Error,
    ) -> AgentError {
        AgentError::Io {
            action,
            path: path.display().to_string(),
            source,
        }
    }
}

impl ErrorCode for AgentError {
    fn code(&self) -> &'static str {
        match self {
            AgentError::Unparseable { .. } => "unparseable_agent_file",
            AgentError::UnexpectedShape { .. } => "unexpected_agent_file_shape",
            AgentError::ChangedUnderfoot { .. } => "changed_underfoot",
            AgentError::ForeignEntry { .. } => "foreign_agent_entry",
            AgentError::NotARegularFile { .. } => "not_a_regular_file",
            AgentError::ReadOnly { .. } => "read_only_agent_file",
            AgentError::Io { .. } => "io",
        }
    }
}
