//! What a workspace operation can fail with: every core module's error, plus the few failures
//! that exist only at this level.
//!
//! Owns: `WorkspaceError`, its stable codes (delegated to the module errors) and fields.
//! Deliberately does not: format for a front end; `ambry_store::error::ErrorReport` does that.

use ambry_store::error::ErrorCode;

pub use ambry_rank::embed::ModelUnavailable;

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error(transparent)]
    Store(#[from] ambry_store::memory::StoreError),
    #[error(transparent)]
    Config(#[from] ambry_store::config::ConfigError),
    #[error(transparent)]
    Project(#[from] ambry_store::project::ProjectError),
    #[error(transparent)]
    Embed(#[from] ambry_rank::embed::EmbedError),
    #[error(transparent)]
    Sessions(#[from] ambry_sessions::sessions::SessionError),
    #[error(transparent)]
    Rank(#[from] ambry_rank::rank::RankError),
    #[error(transparent)]
    Anchor(#[from] ambry_store::anchors::AnchorError),
    #[error(transparent)]
    Editor(#[from] crate::editor::EditorError),
    #[error(transparent)]
    Cases(#[from] ambry_compose::compose::cases::CasesError),
    #[error(transparent)]
    Instruction(#[from] ambry_compose::instructions::InstructionError),
    #[error(transparent)]
    Ledger(#[from] ambry_compose::ledger::LedgerError),
    #[error(transparent)]
    Usage(#[from] ambry_compose::usage::UsageError),
    #[error(transparent)]
    Distill(#[from] ambry_lifecycle::distill::DistillError),
    #[error(transparent)]
    Import(#[from] crate::import::ImportError),
    #[error(transparent)]
    Agent(#[from] ambry_compose::agents::AgentError),
    #[error(transparent)]
    NoModel(#[from] ModelUnavailable),
    #[error(transparent)]
    Watch(#[from] ambry_store::memory::WatchError),
    #[error(transparent)]
    Sync(#[from] ambry_sync::sync::SyncError),
    #[error(transparent)]
    ConfigEdit(#[from] crate::config_edit::ConfigEditError),
    /// A request no operation can carry out as asked (`usage`).
    #[error(transparent)]
    Invalid(#[from] ambry_store::error::InvalidRequest),
    #[error("cannot find your home directory, where the agents keep their files (set HOME)")]
    NoUserHome,
    #[error("Ambry does not know where {project} lives on disk; add it by picking its folder")]
    NoProjectRoot { project: String },
    #[error("the embedding model crashed earlier in this process; restart it to embed again")]
    ModelCrashed,
    #[error("a reindex is already running; wait for it to finish")]
    ReindexRunning,
}

impl ErrorCode for WorkspaceError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            WorkspaceError::Store(e) => e.code(),
            WorkspaceError::Config(e) => e.code(),
            WorkspaceError::Project(e) => e.code(),
            WorkspaceError::Embed(e) => e.code(),
            WorkspaceError::Sessions(e) => e.code(),
            WorkspaceError::Rank(e) => e.code(),
            WorkspaceError::Anchor(e) => e.code(),
            WorkspaceError::Editor(e) => e.code(),
            WorkspaceError::Cases(e) => e.code(),
            WorkspaceError::Instruction(e) => e.code(),
            WorkspaceError::Ledger(e) => e.code(),
            WorkspaceError::Usage(e) => e.code(),
            WorkspaceError::Distill(e) => e.code(),
            WorkspaceError::Import(e) => e.code(),
            WorkspaceError::Agent(e) => e.code(),
            WorkspaceError::NoModel(e) => e.code(),
            WorkspaceError::Watch(e) => e.code(),
            WorkspaceError::Sync(e) => e.code(),
            WorkspaceError::ConfigEdit(e) => e.code(),
            WorkspaceError::Invalid(e) => e.code(),
            WorkspaceError::NoUserHome => ambry_store::error::Code::NoHome,
            WorkspaceError::NoProjectRoot { .. } => ambry_store::error::Code::NoProjectRoot,
            WorkspaceError::ModelCrashed => ambry_store::error::Code::ModelCrashed,
            WorkspaceError::ReindexRunning => ambry_store::error::Code::Busy,
        }
    }

    fn field(&self) -> Option<&'static str> {
        match self {
            WorkspaceError::Store(e) => e.field(),
            WorkspaceError::Sync(e) => e.field(),
            _ => None,
        }
    }
}

impl From<ambry_lifecycle::distill::AcceptError> for WorkspaceError {
    fn from(e: ambry_lifecycle::distill::AcceptError) -> Self {
        match e {
            ambry_lifecycle::distill::AcceptError::Distill(e) => WorkspaceError::Distill(e),
            ambry_lifecycle::distill::AcceptError::Store(e) => WorkspaceError::Store(e),
        }
    }
}
