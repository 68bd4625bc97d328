//! Why the embedding model is not used for a search, a composition or session vectors.
//!
//! Owns: the reasons (not requested, no prompt, failed to load, not lent, loading elsewhere) and
//! their stable codes; the ranker takes one as the note beside a lexical-only ranking.
//! Deliberately does not: decide when the model is loaded or lent (the workspace's model slot
//! does).

use ambry_store::error::{Code, ErrorCode};

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
    Load(std::sync::Arc<super::EmbedError>),
    /// The model loaded but cannot be lent to an embedding job.
    #[error("the model is not available")]
    NotLent,
    /// Another hook of this home is loading the model in its own process: one copy of ONNX
    /// Runtime (~250 MB and seconds of CPU) per home is the most hooks may add.
    #[error("another process of this home is loading the embedding model")]
    LoadingElsewhere,
}

impl ErrorCode for ModelUnavailable {
    fn code(&self) -> Code {
        match self {
            ModelUnavailable::NotRequested => Code::ModelNotRequested,
            ModelUnavailable::NoPrompt => Code::NoPrompt,
            ModelUnavailable::Load(e) => e.code(),
            ModelUnavailable::NotLent => Code::ModelUnavailable,
            ModelUnavailable::LoadingElsewhere => Code::ModelBusy,
        }
    }
}
