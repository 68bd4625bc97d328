//! What a workspace operation can fail with: every core module's error, plus the few failures
//! that exist only at this level.
//!
//! Owns: `WorkspaceError`, its stable codes (delegated to the module errors) and fields.
//! Deliberately does not: format for a front end; `crate::error::ErrorReport` does that.

use crate::error::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error(transparent)]
    Store(#[from] crate::memory::StoreError),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error(transparent)]
    Project(#[from] crate::project::ProjectError),
    #[error(transparent)]
    Embed(#[from] crate::embed::EmbedError),
    #[error(transparent)]
    Sessions(#[from] crate::sessions::SessionError),
    #[error(transparent)]
    Rank(#[from] crate::rank::RankError),
    #[error(transparent)]
    Anchor(#[from] crate::anchors::AnchorError),
    #[error(transparent)]
    Editor(#[from] crate::editor::EditorError),
    #[error(transparent)]
    Cases(#[from] crate::compose::cases::CasesError),
    #[error(transparent)]
    Instruction(#[from] crate::instructions::InstructionError),
    #[error(transparent)]
    Ledger(#[from] crate::ledger::LedgerError),
    #[error(transparent)]
    Usage(#[from] crate::usage::UsageError),
    #[error(transparent)]
    Distill(#[from] crate::distill::DistillError),
    #[error(transparent)]
    Import(#[from] crate::import::ImportError),
    #[error(transparent)]
    Agent(#[from] crate::agents::AgentError),
    #[error(transparent)]
    NoModel(#[from] ModelUnavailable),
    #[error(transparent)]
    Watch(#[from] crate::memory::WatchError),
    #[error(transparent)]
    Sync(#[from] crate::sync::SyncError),
    #[error(transparent)]
    ConfigEdit(#[from] crate::config_edit::ConfigEditError),
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
    fn code(&self) -> crate::error::Code {
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
            WorkspaceError::NoUserHome => crate::error::Code::NoHome,
            WorkspaceError::NoProjectRoot { .. } => crate::error::Code::NoProjectRoot,
            WorkspaceError::ModelCrashed => crate::error::Code::ModelCrashed,
            WorkspaceError::ReindexRunning => crate::error::Code::Busy,
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

impl From<crate::distill::AcceptError> for WorkspaceError {
    fn from(e: crate::distill::AcceptError) -> Self {
        match e {
            crate::distill::AcceptError::Distill(e) => WorkspaceError::Distill(e),
            crate::distill::AcceptError::Store(e) => WorkspaceError::Store(e),
        }
    }
}

/// Why the embedding model is not used for a search, a composition or session vectors (the
/// lexical ranking then stands alone). Its message is the note a front end shows.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ModelUnavailable {
    /// The configured strategy is lexical (`keyword`, `bm25`).
    #[error("not requested")]
    NotRequested,
    /// Nothing to rank by meaning: a context's start has no prompt.
    #[error("no prompt")]
    NoPrompt,
    /// The model's files are missing or it failed to load (a failure is kept for a while, so
    /// every search does not pay for another attempt).
    #[error(transparent)]
    Load(std::sync::Arc<crate::embed::EmbedError>),
    /// The model loaded but cannot be lent to an embedding job.
    #[error("the model is not available")]
    NotLent,
    /// Another hook of this home is loading the model in its own process: one copy of ONNX
    /// Runtime (~250 MB and seconds of CPU) per home is the most hooks may add.
    #[error("another process of this home is loading the embedding model")]
    LoadingElsewhere,
}

impl ErrorCode for ModelUnavailable {
    fn code(&self) -> crate::error::Code {
        match self {
            ModelUnavailable::NotRequested => crate::error::Code::ModelNotRequested,
            ModelUnavailable::NoPrompt => crate::error::Code::NoPrompt,
            ModelUnavailable::Load(e) => e.code(),
            ModelUnavailable::NotLent => crate::error::Code::ModelUnavailable,
            ModelUnavailable::LoadingElsewhere => crate::error::Code::ModelBusy,
        }
    }
}
