//! Errors of the session index.
//!
//! Owns: every way indexing, recall or watching can fail, each saying what to do about it.
//! Deliberately does not: cover bad transcript lines; those are counted and skipped, never errors.

use std::path::PathBuf;

use ambry_store::error::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot open the session index {path}: {reason}; check the directory is writable; do not delete the file: it holds the session index, which may hold the only copy of transcripts the agents have deleted")]
    Open { path: PathBuf, reason: String },
    #[error("the session index {path} is locked by another process (an `ambry sessions watch` or the app indexing?); try again in a moment")]
    Busy { path: PathBuf },
    #[error("session index query failed: {0}; `ambry sessions index --rebuild` recreates the index from the transcripts")]
    Sql(#[from] rusqlite::Error),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no indexed session has the id {id}; `ambry sessions list` shows the ids (run `ambry sessions index` first if it is new)")]
    NotFound { id: String },
    #[error("the transcript of session {id} still exists, so it is not pruned (the index would only read it again); delete the file first")]
    NotVaulted { id: String },
    #[error("cannot watch {path}: {reason}")]
    Watch { path: PathBuf, reason: String },
    #[error("the {source_name} source is switched off in config.toml ([sessions] sources); add \"{source_name}\" there to index it")]
    SourceDisabled { source_name: String },
}

impl SessionError {
    /// Maps a SQLite error on `path`, turning lock contention into the actionable `Busy`.
    pub(crate) fn from_sql(path: &std::path::Path, e: rusqlite::Error) -> SessionError {
        if is_busy(&e) {
            SessionError::Busy {
                path: path.to_path_buf(),
            }
        } else {
            SessionError::Sql(e)
        }
    }
}

pub(crate) use ambry_store::index_db::{is_busy, is_corrupt};

impl ErrorCode for SessionError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            SessionError::Open { .. } => ambry_store::error::Code::SessionIndexUnavailable,
            SessionError::Busy { .. } => ambry_store::error::Code::SessionIndexBusy,
            SessionError::Sql(_) => ambry_store::error::Code::SessionIndexFailed,
            SessionError::Io { .. } => ambry_store::error::Code::SessionIo,
            SessionError::NotFound { .. } => ambry_store::error::Code::SessionNotFound,
            SessionError::SourceDisabled { .. } => ambry_store::error::Code::SourceDisabled,
            SessionError::NotVaulted { .. } => ambry_store::error::Code::SessionNotVaulted,
            SessionError::Watch { .. } => ambry_store::error::Code::SessionWatchFailed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unopenable_index_is_not_called_safe_to_delete() {
        let message = SessionError::Open {
            path: "/h/index.sqlite".into(),
            reason: "permission denied".into(),
        }
        .to_string();
        assert!(message.contains("only copy of transcripts"), "{message}");
        assert!(!message.contains("safe"), "{message}");
    }
}
