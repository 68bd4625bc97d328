//! Errors of the embedding module.
//!
//! Owns: every way loading or running the model can fail, each saying what to run to fix it.
//! Deliberately does not: decide fallbacks; callers fall back to bm25 and say why.

use std::path::PathBuf;

use ambry_store::error::ErrorCode;

/// Cloneable so a failed load can be remembered for the whole process and reported again.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbedError {
    #[error("ONNX Runtime not found at {path}; fetch it with `scripts/fetch-models.sh {models_dir}` (the README setup command does this)")]
    RuntimeMissing { path: PathBuf, models_dir: PathBuf },
    #[error("embedding model incomplete: {path} is missing; fetch it with `scripts/fetch-models.sh {models_dir}` (the README setup command does this)")]
    ModelMissing { path: PathBuf, models_dir: PathBuf },
    #[error("cannot load ONNX Runtime from {path}: {reason}; re-fetch it with `scripts/fetch-models.sh {models_dir}`")]
    RuntimeLoad {
        path: PathBuf,
        models_dir: PathBuf,
        reason: String,
    },
    #[error("cannot load the embedding model from {path}: {reason}; re-fetch it with `scripts/fetch-models.sh {models_dir}`")]
    ModelLoad {
        path: PathBuf,
        models_dir: PathBuf,
        reason: String,
    },
    #[error("the embedding runtime is already loaded from {loaded} in this process; restart to use {requested}")]
    OtherRuntimeLoaded { loaded: PathBuf, requested: PathBuf },
    #[error("embedding failed: {reason}")]
    Inference { reason: String },
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
}

impl ErrorCode for EmbedError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            EmbedError::RuntimeMissing { .. } => ambry_store::error::Code::EmbeddingRuntimeMissing,
            EmbedError::ModelMissing { .. } => ambry_store::error::Code::EmbeddingModelMissing,
            EmbedError::RuntimeLoad { .. } => ambry_store::error::Code::EmbeddingRuntimeFailed,
            EmbedError::ModelLoad { .. } => ambry_store::error::Code::EmbeddingModelFailed,
            EmbedError::OtherRuntimeLoaded { .. } => {
                ambry_store::error::Code::EmbeddingRuntimeConflict
            }
            EmbedError::Inference { .. } => ambry_store::error::Code::EmbeddingFailed,
            EmbedError::Write { .. } => ambry_store::error::Code::Io,
        }
    }
}
