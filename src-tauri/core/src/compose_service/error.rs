//! Errors of the compose service, on both ends of the socket.
//!
//! Owns: every way starting, reaching or talking to a compose service can fail, each saying
//! what to do about it (`ServiceError`), and every reason a service refuses a request
//! (`Refusal`: the codes on the wire, each written once).
//! Deliberately does not: decide fallbacks; a client that gets any of these composes in-process.

use std::path::PathBuf;

use ambry_store::error::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("another compose service already serves {home} (pid {pid}); use it, or stop it before starting a new one")]
    AlreadyRunning { home: PathBuf, pid: String },
    #[error(
        "{home} is owned by another user; a compose service only serves a home its own user owns"
    )]
    HomeNotOwned { home: PathBuf },
    #[error(
        "{path} exists and is not a socket; move it away so the compose service can listen there"
    )]
    NotASocket { path: PathBuf },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no compose service answered on {socket}: {source}")]
    Unreachable {
        socket: PathBuf,
        source: std::io::Error,
    },
    #[error("the compose service did not answer in time ({source})")]
    Timeout { source: std::io::Error },
    #[error("the compose service sent an unreadable answer: {reason}")]
    Protocol { reason: String },
    #[error("the compose service speaks protocol {theirs} (ambry {their_version}), this client protocol {ours} (ambry {our_version}); restart the service with this ambry")]
    VersionMismatch {
        ours: u32,
        our_version: String,
        theirs: u32,
        their_version: String,
    },
    #[error("the compose service refused the request ({code}): {message}")]
    Refused { code: String, message: String },
}

impl ErrorCode for ServiceError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            ServiceError::AlreadyRunning { .. } => ambry_store::error::Code::ServiceAlreadyRunning,
            ServiceError::HomeNotOwned { .. } => ambry_store::error::Code::HomeNotOwned,
            ServiceError::NotASocket { .. } => ambry_store::error::Code::SocketPathTaken,
            ServiceError::Io { .. } => ambry_store::error::Code::Io,
            ServiceError::Unreachable { .. } => ambry_store::error::Code::ServiceUnreachable,
            ServiceError::Timeout { .. } => ambry_store::error::Code::ServiceTimeout,
            ServiceError::Protocol { .. } => ambry_store::error::Code::ProtocolError,
            ServiceError::VersionMismatch { .. } => ambry_store::error::Code::VersionMismatch,
            ServiceError::Refused { .. } => ambry_store::error::Code::ServiceRefused,
        }
    }
}

/// Why a compose service answers a request with an error instead of a composition. Its code and
/// message go on the wire; the client reads them back as `ServiceError::Refused`.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("this service serves {ours}, not {theirs}")]
    HomeMismatch { ours: PathBuf, theirs: PathBuf },
    #[error("this service uses models from {ours}, not {theirs}")]
    ModelsDirMismatch { ours: PathBuf, theirs: PathBuf },
    #[error("this service reads transcripts from {ours}, not {theirs}")]
    SessionRootsMismatch { ours: String, theirs: String },
    #[error("cwd must be absolute, got {cwd}")]
    RelativeCwd { cwd: PathBuf },
    #[error("{why}")]
    MalformedRequest { why: String },
    #[error("this service speaks protocol {ours} (ambry {our_version}); the request is protocol {theirs} (ambry {their_version})")]
    VersionMismatch {
        ours: u32,
        our_version: &'static str,
        theirs: u32,
        their_version: String,
    },
    #[error("the compose service failed on this request; compose in-process")]
    Internal,
}

impl ErrorCode for Refusal {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            Refusal::HomeMismatch { .. } => ambry_store::error::Code::HomeMismatch,
            Refusal::ModelsDirMismatch { .. } => ambry_store::error::Code::ModelsDirMismatch,
            Refusal::RelativeCwd { .. } => ambry_store::error::Code::RelativeCwd,
            Refusal::SessionRootsMismatch { .. } => ambry_store::error::Code::SessionRootsMismatch,
            Refusal::MalformedRequest { .. } => ambry_store::error::Code::MalformedRequest,
            Refusal::VersionMismatch { .. } => ambry_store::error::Code::VersionMismatch,
            Refusal::Internal => ambry_store::error::Code::Internal,
        }
    }
}
