//! The stable error vocabulary shared by every core module and every front end.
//!
//! Owns: the `Code` enum (every stable machine-readable kind an error can have, the one list:
//! `docs/errors.md` documents each and a test keeps the two equal), the `ErrorCode` trait (each
//! structured error's code), the `ErrorReport` shape every front end shows (`{ "code", "message", "field"? }` across IPC, in
//! `--json` errors and in MCP tool errors), how an error chain becomes that shape, the few
//! codes only a front end can produce (`FrontEndCode`), and how much of someone's input an
//! error quotes (`quoted`: a short excerpt and its length, never a 5 MB field echoed whole).
//! Deliberately does not: define the module errors themselves (each module has its own
//! `thiserror` enum) or list them: this file imports nothing of the crate, so every module can
//! implement `ErrorCode` without an import cycle; `error_registry.rs` lists the types.

use serde::Serialize;

/// Every stable error kind, as `as_str` spells it across IPC, in `--json` and in MCP errors.
/// One list: a module error maps each of its variants to one of these, a front end raises
/// only these, and `docs/errors.md` says what each means (a test keeps them equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    AgentFailed,
    AgentMissing,
    AgentTimedOut,
    AlreadyExists,
    AnswerTooLarge,
    BadHookPayload,
    BadProjectRecord,
    Busy,
    ChangedOnDisk,
    ChangedUnderfoot,
    ConfigInvalid,
    ConfigUnreadable,
    ConfigWriteFailed,
    Damaged,
    DiskFull,
    DistillDisabled,
    EditorNeedsTerminal,
    EmbeddingFailed,
    EmbeddingModelFailed,
    EmbeddingModelMissing,
    EmbeddingRuntimeConflict,
    EmbeddingRuntimeFailed,
    EmbeddingRuntimeMissing,
    Failed,
    ForeignAgentEntry,
    GitMissing,
    GitTooOld,
    HomeMismatch,
    HomeNotADirectory,
    HomeNotOwned,
    IndexNotWritten,
    Internal,
    InvalidCases,
    InvalidEditorCommand,
    InvalidField,
    InvalidFormat,
    InvalidLink,
    InvalidName,
    InvalidPath,
    InvalidRemote,
    InvalidSetting,
    InvalidType,
    Io,
    LaunchFailed,
    Ledger,
    MalformedAnswer,
    MalformedRequest,
    ModelBusy,
    ModelCrashed,
    ModelNotRequested,
    ModelUnavailable,
    ModelsDirMismatch,
    NameMismatch,
    NoDefaultApplication,
    NoHome,
    NoProject,
    NoProjectRoot,
    NoPrompt,
    NotADirectory,
    NotARegularFile,
    NotApplicable,
    NotFound,
    ProtocolError,
    ReadOnlyAgentFile,
    RelativeCwd,
    RemoteRejected,
    RemoteUnreachable,
    ScopeLocked,
    SecretDetected,
    ServiceAlreadyRunning,
    ServiceRefused,
    ServiceTimeout,
    ServiceUnreachable,
    SessionIndexBusy,
    SessionIndexFailed,
    SessionIndexUnavailable,
    SessionIo,
    SessionNotFound,
    SessionNotVaulted,
    SessionRootsMismatch,
    SessionWatchFailed,
    SocketPathTaken,
    SourceDisabled,
    Stopped,
    SymlinkRefused,
    SyncFailed,
    SyncNotInitialized,
    TooLarge,
    UnexpectedAgentFileShape,
    UnknownProject,
    UnknownSetting,
    UnparseableAgentFile,
    UnparseableExisting,
    UnparseableVersion,
    Unreadable,
    UnreadableFile,
    Usage,
    UsageLog,
    VersionMismatch,
    VersionNotFound,
    WatchFailed,
}

impl Code {
    /// Every code, in the order of `docs/errors.md`.
    pub const ALL: &'static [Code] = &[
        Code::AgentFailed,
        Code::AgentMissing,
        Code::AgentTimedOut,
        Code::AlreadyExists,
        Code::AnswerTooLarge,
        Code::BadHookPayload,
        Code::BadProjectRecord,
        Code::Busy,
        Code::ChangedOnDisk,
        Code::ChangedUnderfoot,
        Code::ConfigInvalid,
        Code::ConfigUnreadable,
        Code::ConfigWriteFailed,
        Code::Damaged,
        Code::DiskFull,
        Code::DistillDisabled,
        Code::EditorNeedsTerminal,
        Code::EmbeddingFailed,
        Code::EmbeddingModelFailed,
        Code::EmbeddingModelMissing,
        Code::EmbeddingRuntimeConflict,
        Code::EmbeddingRuntimeFailed,
        Code::EmbeddingRuntimeMissing,
        Code::Failed,
        Code::ForeignAgentEntry,
        Code::GitMissing,
        Code::GitTooOld,
        Code::HomeMismatch,
        Code::HomeNotADirectory,
        Code::HomeNotOwned,
        Code::IndexNotWritten,
        Code::Internal,
        Code::InvalidCases,
        Code::InvalidEditorCommand,
        Code::InvalidField,
        Code::InvalidFormat,
        Code::InvalidLink,
        Code::InvalidName,
        Code::InvalidPath,
        Code::InvalidRemote,
        Code::InvalidSetting,
        Code::InvalidType,
        Code::Io,
        Code::LaunchFailed,
        Code::Ledger,
        Code::MalformedAnswer,
        Code::MalformedRequest,
        Code::ModelBusy,
        Code::ModelCrashed,
        Code::ModelNotRequested,
        Code::ModelUnavailable,
        Code::ModelsDirMismatch,
        Code::NameMismatch,
        Code::NoDefaultApplication,
        Code::NoHome,
        Code::NoProject,
        Code::NoProjectRoot,
        Code::NoPrompt,
        Code::NotADirectory,
        Code::NotARegularFile,
        Code::NotApplicable,
        Code::NotFound,
        Code::ProtocolError,
        Code::ReadOnlyAgentFile,
        Code::RelativeCwd,
        Code::RemoteRejected,
        Code::RemoteUnreachable,
        Code::ScopeLocked,
        Code::SecretDetected,
        Code::ServiceAlreadyRunning,
        Code::ServiceRefused,
        Code::ServiceTimeout,
        Code::ServiceUnreachable,
        Code::SessionIndexBusy,
        Code::SessionIndexFailed,
        Code::SessionIndexUnavailable,
        Code::SessionIo,
        Code::SessionNotFound,
        Code::SessionNotVaulted,
        Code::SessionRootsMismatch,
        Code::SessionWatchFailed,
        Code::SocketPathTaken,
        Code::SourceDisabled,
        Code::Stopped,
        Code::SymlinkRefused,
        Code::SyncFailed,
        Code::SyncNotInitialized,
        Code::TooLarge,
        Code::UnexpectedAgentFileShape,
        Code::UnknownProject,
        Code::UnknownSetting,
        Code::UnparseableAgentFile,
        Code::UnparseableExisting,
        Code::UnparseableVersion,
        Code::Unreadable,
        Code::UnreadableFile,
        Code::Usage,
        Code::UsageLog,
        Code::VersionMismatch,
        Code::VersionNotFound,
        Code::WatchFailed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::GitMissing => "git_missing",
            Code::GitTooOld => "git_too_old",
            Code::InvalidRemote => "invalid_remote",
            Code::RemoteRejected => "remote_rejected",
            Code::RemoteUnreachable => "remote_unreachable",
            Code::SyncFailed => "sync_failed",
            Code::SyncNotInitialized => "sync_not_initialized",
            Code::AgentFailed => "agent_failed",
            Code::AgentMissing => "agent_missing",
            Code::AgentTimedOut => "agent_timed_out",
            Code::AlreadyExists => "already_exists",
            Code::AnswerTooLarge => "answer_too_large",
            Code::BadHookPayload => "bad_hook_payload",
            Code::BadProjectRecord => "bad_project_record",
            Code::Busy => "busy",
            Code::ChangedOnDisk => "changed_on_disk",
            Code::ChangedUnderfoot => "changed_underfoot",
            Code::ConfigInvalid => "config_invalid",
            Code::ConfigUnreadable => "config_unreadable",
            Code::ConfigWriteFailed => "config_write_failed",
            Code::Damaged => "damaged",
            Code::DiskFull => "disk_full",
            Code::DistillDisabled => "distill_disabled",
            Code::EditorNeedsTerminal => "editor_needs_terminal",
            Code::EmbeddingFailed => "embedding_failed",
            Code::EmbeddingModelFailed => "embedding_model_failed",
            Code::EmbeddingModelMissing => "embedding_model_missing",
            Code::EmbeddingRuntimeConflict => "embedding_runtime_conflict",
            Code::EmbeddingRuntimeFailed => "embedding_runtime_failed",
            Code::EmbeddingRuntimeMissing => "embedding_runtime_missing",
            Code::Failed => "failed",
            Code::ForeignAgentEntry => "foreign_agent_entry",
            Code::HomeMismatch => "home_mismatch",
            Code::HomeNotADirectory => "home_not_a_directory",
            Code::HomeNotOwned => "home_not_owned",
            Code::IndexNotWritten => "index_not_written",
            Code::Internal => "internal",
            Code::InvalidCases => "invalid_cases",
            Code::InvalidEditorCommand => "invalid_editor_command",
            Code::InvalidField => "invalid_field",
            Code::InvalidFormat => "invalid_format",
            Code::InvalidLink => "invalid_link",
            Code::InvalidName => "invalid_name",
            Code::InvalidPath => "invalid_path",
            Code::InvalidSetting => "invalid_setting",
            Code::InvalidType => "invalid_type",
            Code::Io => "io",
            Code::LaunchFailed => "launch_failed",
            Code::Ledger => "ledger",
            Code::MalformedAnswer => "malformed_answer",
            Code::MalformedRequest => "malformed_request",
            Code::ModelBusy => "model_busy",
            Code::ModelCrashed => "model_crashed",
            Code::ModelNotRequested => "model_not_requested",
            Code::ModelUnavailable => "model_unavailable",
            Code::ModelsDirMismatch => "models_dir_mismatch",
            Code::NameMismatch => "name_mismatch",
            Code::NoDefaultApplication => "no_default_application",
            Code::NoHome => "no_home",
            Code::NoProject => "no_project",
            Code::NoProjectRoot => "no_project_root",
            Code::NoPrompt => "no_prompt",
            Code::NotADirectory => "not_a_directory",
            Code::NotARegularFile => "not_a_regular_file",
            Code::NotApplicable => "not_applicable",
            Code::NotFound => "not_found",
            Code::ProtocolError => "protocol_error",
            Code::ReadOnlyAgentFile => "read_only_agent_file",
            Code::RelativeCwd => "relative_cwd",
            Code::ScopeLocked => "scope_locked",
            Code::SecretDetected => "secret_detected",
            Code::ServiceAlreadyRunning => "service_already_running",
            Code::ServiceRefused => "service_refused",
            Code::ServiceTimeout => "service_timeout",
            Code::ServiceUnreachable => "service_unreachable",
            Code::SessionIndexBusy => "session_index_busy",
            Code::SessionIndexFailed => "session_index_failed",
            Code::SessionIndexUnavailable => "session_index_unavailable",
            Code::SessionIo => "session_io",
            Code::SessionNotFound => "session_not_found",
            Code::SessionNotVaulted => "session_not_vaulted",
            Code::SessionRootsMismatch => "session_roots_mismatch",
            Code::SessionWatchFailed => "session_watch_failed",
            Code::SocketPathTaken => "socket_path_taken",
            Code::SourceDisabled => "source_disabled",
            Code::Stopped => "stopped",
            Code::SymlinkRefused => "symlink_refused",
            Code::TooLarge => "too_large",
            Code::UnexpectedAgentFileShape => "unexpected_agent_file_shape",
            Code::UnknownProject => "unknown_project",
            Code::UnknownSetting => "unknown_setting",
            Code::UnparseableAgentFile => "unparseable_agent_file",
            Code::UnparseableExisting => "unparseable_existing",
            Code::UnparseableVersion => "unparseable_version",
            Code::Unreadable => "unreadable",
            Code::UnreadableFile => "unreadable_file",
            Code::Usage => "usage",
            Code::UsageLog => "usage_log",
            Code::VersionMismatch => "version_mismatch",
            Code::VersionNotFound => "version_not_found",
            Code::WatchFailed => "watch_failed",
        }
    }

    /// An error of this code that arose in a front end, as every front end shows it.
    pub fn report(self, message: impl Into<String>) -> ErrorReport {
        ErrorReport {
            code: self.as_str().to_string(),
            message: message.into(),
            field: None,
        }
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The codes a front end raises itself (a task that died, a program that would not start, a
/// request not understood) are codes like any other.
pub type FrontEndCode = Code;

/// A structured error with a stable kind the UI and scripts can act on.
pub trait ErrorCode: std::error::Error {
    /// Its stable kind, such as `Code::InvalidName` or `Code::NotFound`.
    fn code(&self) -> Code;
    /// The input field the error is about, when there is one (`name`, `type`, `description`…),
    /// so a form can mark it without parsing the message.
    fn field(&self) -> Option<&'static str> {
        None
    }
}

/// A request a front end was given that cannot be carried out as asked (flags that do not go
/// together, input missing): code `usage`, so the CLI exits 2 for it as for a parse error.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InvalidRequest(pub String);

impl ErrorCode for InvalidRequest {
    fn code(&self) -> Code {
        Code::Usage
    }
}

/// Most characters of someone's input (a name, a type, a version) an error message quotes.
pub const QUOTE_MAX: usize = 64;

/// `input` as an error message quotes it: whole when it is at most [`QUOTE_MAX`] characters,
/// else its first `QUOTE_MAX` characters, an ellipsis and its length, so an oversized field
/// (an agent's 5 MB `type`) is named in the error, not sent back whole.
pub fn quoted(input: &str) -> String {
    match input.char_indices().nth(QUOTE_MAX) {
        None => input.to_string(),
        Some((end, _)) => format!("{}… ({} bytes)", &input[..end], input.len()),
    }
}

/// An error as every front end shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorReport {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl ErrorReport {
    /// A coded error as every front end shows it: its own code and field, the message of its
    /// whole chain. What the façade's `report` gives for the same error, without the registry of
    /// every error type (so a core module can report its own errors without importing it).
    pub fn of<E: ErrorCode + 'static>(error: &E) -> Self {
        chain_report(error, &|_| None).with_code(error.code(), error.field())
    }

    fn with_code(mut self, code: Code, field: Option<&'static str>) -> Self {
        self.code = code.as_str().to_string();
        self.field = field.map(str::to_string);
        self
    }
}

/// `?` on any coded error in a function that returns an `ErrorReport` (the app's commands). The
/// error is the first coded link of its own chain, so this is what the façade's registry gives.
impl<E: ErrorCode + 'static> From<E> for ErrorReport {
    fn from(error: E) -> Self {
        ErrorReport::of(&error)
    }
}

/// What `coded` finds on the first cause that has a code: that code and field.
pub type Coded = Option<(Code, Option<&'static str>)>;

/// The code and field of the first error in `error`'s chain `coded` knows; `failed` otherwise.
/// The message is the whole chain, each cause once (a cause whose text the outer message
/// already contains is not repeated).
pub fn chain_report(
    error: &(dyn std::error::Error + 'static),
    coded: &dyn Fn(&(dyn std::error::Error + 'static)) -> Coded,
) -> ErrorReport {
    let mut code = None;
    let mut message = String::new();
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if code.is_none() {
            code = coded(e);
        }
        let text = e.to_string();
        if !message.contains(&text) {
            if !message.is_empty() {
                message.push_str(": ");
            }
            message.push_str(&text);
        }
        cause = e.source();
    }
    let (code, field) = code.unwrap_or((Code::Failed, None));
    ErrorReport {
        code: code.as_str().to_string(),
        message,
        field: field.map(str::to_string),
    }
}
