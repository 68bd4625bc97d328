//! Where the CLI looks for the embedding assets.
//!
//! Owns: the one environment override, `ENGRAM_MODELS_DIR`, read here at the edge; otherwise
//! `ENGRAM_HOME/models`. The model id comes from `retrieval.embedding_model`.
//! Deliberately does not: load or check anything (core does).

use std::path::PathBuf;

use anyhow::Result;
use engram_core::embed::ModelPaths;
use engram_core::EngramHome;

use crate::context::Context;

pub fn model_paths(ctx: &Context) -> Result<ModelPaths> {
    let model_id = ctx.config()?.retrieval.embedding_model.clone();
    Ok(ModelPaths::new(models_dir(&ctx.home), model_id))
}

/// The directory holding ONNX Runtime and the models.
pub fn models_dir(home: &EngramHome) -> PathBuf {
    std::env::var_os("ENGRAM_MODELS_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.models_dir())
}
