//! What personal sync can fail with (DESIGN §15).
//!
//! Owns: `SyncError`, its stable codes and the words that say what to do.
//! Deliberately does not: record a failure for `sync status` (see `state`) or describe files a
//! remote sent that were refused: those are not errors, the sync goes on without them.

use ambry_store::error::{Code, ErrorCode};

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(
        "git is not installed or cannot be started ({reason}); install git {min} or later to sync"
    )]
    GitMissing { reason: String, min: &'static str },
    #[error("git {found} is too old for sync; install git {min} or later")]
    GitTooOld { found: String, min: &'static str },
    #[error(
        "sync is not set up in this home; run `ambry sync init REMOTE` with a git remote you own"
    )]
    NotInitialized,
    #[error("`{remote}` is not a usable git remote: {reason}")]
    InvalidRemote { remote: String, reason: String },
    #[error("cannot reach the sync remote {remote}: {reason}. Local work goes on; the next sync retries")]
    RemoteUnreachable { remote: String, reason: String },
    #[error("the sync remote {remote} refused the push: {reason}")]
    RemoteRejected { remote: String, reason: String },
    #[error("another sync of this home is running (held by {holder}); try again when it ends")]
    Busy { holder: String },
    #[error("`git {command}` failed in the sync checkout: {reason}")]
    Git { command: String, reason: String },
    #[error("`git {command}` took longer than {seconds} s and was stopped")]
    TimedOut { command: String, seconds: u64 },
    #[error("{path} is not a memory: edit it by hand to settle the conflict, then dismiss it")]
    NotAMemory { path: String },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] ambry_store::memory::StoreError),
}

impl SyncError {
    pub(crate) fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        SyncError::Io {
            action,
            path: path.display().to_string(),
            source,
        }
    }
}

impl ErrorCode for SyncError {
    fn code(&self) -> Code {
        match self {
            SyncError::GitMissing { .. } => Code::GitMissing,
            SyncError::GitTooOld { .. } => Code::GitTooOld,
            SyncError::NotInitialized => Code::SyncNotInitialized,
            SyncError::InvalidRemote { .. } => Code::InvalidRemote,
            SyncError::RemoteUnreachable { .. } => Code::RemoteUnreachable,
            SyncError::RemoteRejected { .. } => Code::RemoteRejected,
            SyncError::Busy { .. } => Code::Busy,
            SyncError::Git { .. } | SyncError::TimedOut { .. } => Code::SyncFailed,
            SyncError::NotAMemory { .. } => Code::NotApplicable,
            SyncError::Io { source, .. } if source.raw_os_error() == Some(libc::ENOSPC) => {
                Code::DiskFull
            }
            SyncError::Io { .. } => Code::Io,
            SyncError::Store(e) => e.code(),
        }
    }

    fn field(&self) -> Option<&'static str> {
        match self {
            SyncError::Store(e) => e.field(),
            _ => None,
        }
    }
}
