//! Local embeddings (DESIGN §6): where the assets live, the lazily loaded model, `.vec`
//! sidecars and incremental reindex.
//!
//! Owns: finding ONNX Runtime and all-MiniLM-L6-v2 under a models directory, loading them once
//! per process through fastembed (mean pooling, max length 256), the sidecar file format, and
//! deciding which sidecars a reindex must rewrite.
//! Deliberately does not: list or parse memory files (the store does), rank (the ranker fuses
//! cosine scores), fetch assets (`scripts/fetch-models.sh` does), or read the environment (the
//! caller decides the models directory and passes it in).

mod assets;
mod embedder;
mod error;
mod per_batch;
mod phrases;
mod reindex;
mod save;
mod scorer;
mod semantic;
mod sidecar;
mod strategy;
mod unavailable;

pub use assets::RUNTIME_FILE;
pub use assets::{ModelPaths, MODEL_DIMENSION, MODEL_FILES};
pub use embedder::{release_idle_model_in_background, shared_embedder, Embedder, TextEmbedder};
pub use embedder::{release_idle_shared_model, BATCH_SIZE};
pub use error::EmbedError;
pub use per_batch::ModelPerBatch;
pub use reindex::{reindex, ReindexOutcome};
pub use reindex::{reindex_files, write_vector, ReindexProgress, ReindexReport};
pub use save::{
    create_ruled_with_vector, create_with_vector, restore_with_vector, save_ruled_with_vector,
    save_with_vector, with_vector, SavedWithVector, VectorStatus,
};
pub use scorer::semantic_arg;
pub use scorer::ModelScorer;
pub use semantic::semantic_scores;
pub use semantic::{cosine, VectorCache};
use semantic::{dot, normalized};
pub use sidecar::{embedded_text, read_sidecar, sidecar_path, text_hash, TextHash};
pub use sidecar::{
    read_header, write_sidecar, Sidecar, SidecarHeader, SIDECAR_MAGIC, SIDECAR_VERSION,
};
pub use strategy::embed_checks;
pub use strategy::{resolve_strategy, EffectiveStrategy, EmbedChecks, StrategyChoice};
pub use unavailable::ModelUnavailable;
