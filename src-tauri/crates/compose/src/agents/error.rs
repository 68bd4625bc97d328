//! Errors of agent integration: each says which file and what to do.

use ambry_store::error::ErrorCode;

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
    fn code(&self) -> ambry_store::error::Code {
        match self {
            AgentError::Unparseable { .. } => ambry_store::error::Code::UnparseableAgentFile,
            AgentError::UnexpectedShape { .. } => {
                ambry_store::error::Code::UnexpectedAgentFileShape
            }
            AgentError::ChangedUnderfoot { .. } => ambry_store::error::Code::ChangedUnderfoot,
            AgentError::ForeignEntry { .. } => ambry_store::error::Code::ForeignAgentEntry,
            AgentError::NotARegularFile { .. } => ambry_store::error::Code::NotARegularFile,
            AgentError::ReadOnly { .. } => ambry_store::error::Code::ReadOnlyAgentFile,
            AgentError::Io { .. } => ambry_store::error::Code::Io,
        }
    }
}
