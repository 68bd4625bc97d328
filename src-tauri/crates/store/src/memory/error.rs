//! Everything that can go wrong in the store, each with a stable code and a next step.

use crate::error::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("invalid name `{name}`: {reason}")]
    InvalidName { name: String, reason: String },
    #[error("invalid type `{kind}`: {reason}")]
    InvalidType { kind: String, reason: String },
    #[error("invalid {field}: {reason}")]
    InvalidField { field: &'static str, reason: String },
    #[error("refused: the content looks like a secret ({kind}: `{excerpt}`); remove it and store a pointer to where the secret lives instead")]
    SecretDetected { kind: &'static str, excerpt: String },
    #[error(
        "no memory named `{name}` in {scope}; `ambry memory list` shows the memories there are"
    )]
    NotFound { scope: String, name: String },
    #[error("a memory named `{name}` already exists in {scope} scope")]
    AlreadyExists { scope: String, name: String },
    #[error("no archived version `{version}` of `{name}`; list them with `ambry memory archive list {name}`")]
    VersionNotFound { name: String, version: String },
    #[error(
        "no project is selected: run inside a repository, pass --cwd DIR, or use --scope user"
    )]
    NoProject,
    #[error(
        "{path} does not parse ({reason}); fix it in an editor or forget it before saving over it"
    )]
    UnparseableExisting { path: String, reason: NotAMemory },
    #[error("{path}: the name in the file (`{found}`) must equal the file name (`{expected}`)")]
    NameMismatch {
        path: String,
        expected: String,
        found: String,
    },
    #[error("refused: {path} is a symbolic link; Ambry does not write through links")]
    Symlink { path: String },
    /// The memory is on disk; only the scope's MEMORY.md could not be rewritten.
    #[error("saved {saved}, but {index} was not updated ({reason}); the memory is kept, and the next save rewrites the index once that is fixed")]
    IndexNotWritten {
        saved: String,
        index: String,
        reason: String,
    },
    #[error("another writer ({holder}) has held the lock on {path} for {seconds} s; wait for it to finish, or stop it if it is stuck")]
    Locked {
        path: String,
        holder: String,
        seconds: u64,
    },
    #[error("{path} {reason}")]
    Unreadable { path: String, reason: String },
    #[error("archived version {version} of `{name}` does not parse ({reason}); nothing was restored. Its text is at {path}: copy what you need from it by hand")]
    UnparseableVersion {
        name: String,
        version: String,
        path: String,
        reason: String,
    },
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
}

impl StoreError {
    pub fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        if source.kind() == std::io::ErrorKind::InvalidInput
            && source.to_string().contains("symbolic link")
        {
            return StoreError::Symlink {
                path: path.display().to_string(),
            };
        }
        StoreError::Io {
            action,
            path: path.display().to_string(),
            source,
        }
    }
}

impl ErrorCode for StoreError {
    fn code(&self) -> crate::error::Code {
        match self {
            StoreError::InvalidName { .. } => crate::error::Code::InvalidName,
            StoreError::InvalidType { .. } => crate::error::Code::InvalidType,
            StoreError::InvalidField { .. } => crate::error::Code::InvalidField,
            StoreError::SecretDetected { .. } => crate::error::Code::SecretDetected,
            StoreError::NotFound { .. } => crate::error::Code::NotFound,
            StoreError::AlreadyExists { .. } => crate::error::Code::AlreadyExists,
            StoreError::VersionNotFound { .. } => crate::error::Code::VersionNotFound,
            StoreError::NoProject => crate::error::Code::NoProject,
            StoreError::UnparseableExisting { .. } => crate::error::Code::UnparseableExisting,
            StoreError::NameMismatch { .. } => crate::error::Code::NameMismatch,
            StoreError::Symlink { .. } => crate::error::Code::SymlinkRefused,
            StoreError::IndexNotWritten { .. } => crate::error::Code::IndexNotWritten,
            StoreError::Locked { .. } => crate::error::Code::ScopeLocked,
            StoreError::Unreadable { .. } => crate::error::Code::UnreadableFile,
            StoreError::UnparseableVersion { .. } => crate::error::Code::UnparseableVersion,
            StoreError::Io { source, .. } if is_disk_full(source) => crate::error::Code::DiskFull,
            StoreError::Io { .. } => crate::error::Code::Io,
        }
    }

    fn field(&self) -> Option<&'static str> {
        match self {
            StoreError::InvalidName { .. } | StoreError::AlreadyExists { .. } => Some("name"),
            StoreError::InvalidType { .. } => Some("type"),
            StoreError::InvalidField { field, .. } => Some(field),
            _ => None,
        }
    }
}

fn is_disk_full(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull || e.raw_os_error() == Some(28)
}

/// Why a file's text is not a memory (its frontmatter); the message says where and what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FormatError(pub String);

/// Why a file in a scope directory is not a memory. Such a file is listed with this reason
/// (never silently dropped) and never overwritten; the message says what to fix. Every message
/// quotes what the file holds (its `name:`, its `type:`) with control characters written out,
/// so an escape sequence in a file reaches a terminal as text, never as a command to it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NotAMemory {
    /// Missing (on a path the caller expected), not a regular file, too large, or unreadable.
    #[error("{}", escaped(.0))]
    Unreadable(std::sync::Arc<super::bounded_read::ReadRefusal>),
    #[error("not UTF-8 text")]
    NotUtf8,
    #[error("{}", escaped(.0))]
    Format(#[from] FormatError),
    #[error("`name: {}` must equal the file name `{}`", escaped(.name), escaped(.stem))]
    NameMismatch { name: String, stem: String },
    /// The file name or the type is not one a memory may have.
    #[error("{}", escaped(.0))]
    Invalid(std::sync::Arc<StoreError>),
}

fn escaped(shown: &impl std::fmt::Display) -> String {
    escape_controls(&shown.to_string()).into_owned()
}

/// `text` with every control character written out (`\u{1b}`), for messages that quote what a
/// file holds: an escape sequence in a `name:` or `type:` must reach a terminal as text, never
/// as a command to it (a title change, a cleared screen), yet still show what is wrong.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

impl ErrorCode for NotAMemory {
    fn code(&self) -> crate::error::Code {
        match self {
            NotAMemory::Unreadable(_) => crate::error::Code::UnreadableFile,
            NotAMemory::NotUtf8 | NotAMemory::Format(_) => crate::error::Code::InvalidFormat,
            NotAMemory::NameMismatch { .. } => crate::error::Code::NameMismatch,
            NotAMemory::Invalid(e) => e.code(),
        }
    }
}
