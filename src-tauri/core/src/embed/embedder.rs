//! The embedding model, loaded lazily and once per process.
//!
//! Owns: loading ONNX Runtime with `ort::init_from` (an error, never the panic a bare
//! `ORT_DYLIB_PATH` gives), building fastembed's user-defined all-MiniLM-L6-v2 with mean pooling
//! and max length 256, and the batch size.
//! Deliberately does not: decide what to embed or where vectors go (reindex and sidecar do).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};
use ort::environment::Environment;

use super::{EmbedError, ModelPaths, MODEL_DIMENSION};

/// Texts per inference call. Measured with `examples/embed_bench` on ~70-word memories
/// (2 cores): batch 8 ≈ 42 texts/s at 280 MB peak RSS, 32 ≈ 27/s at 635 MB, 64 ≈ 22/s at
/// 1.1 GB. Larger batches pad every text to the longest and only cost memory.
pub const BATCH_SIZE: usize = 8;
/// Tokens per text; memory bodies beyond it are truncated by the tokenizer.
const MAX_LENGTH: usize = 256;

/// Anything that turns texts into vectors of one model: the real model, or a fake in tests.
pub trait TextEmbedder {
    /// Written into every sidecar; a sidecar of another id is stale.
    fn model_id(&self) -> &str;
    fn dimension(&self) -> usize;
    /// One vector per text, in order.
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// all-MiniLM-L6-v2 through fastembed.
pub struct Embedder {
    model: TextEmbedding,
    model_id: String,
    batch_size: usize,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("model_id", &self.model_id)
            .finish()
    }
}

impl Embedder {
    /// Loads the runtime (once per process; ONNX Runtime cannot be swapped afterwards) and the model.
    pub fn load(paths: &ModelPaths) -> Result<Self, EmbedError> {
        paths.check()?;
        let models_dir = paths.models_dir().to_path_buf();
        let environment = runtime_environment(paths)?;
        let dir = paths.model_dir();
        let read = |file: &str| {
            let path = dir.join(file);
            std::fs::read(&path).map_err(|e| EmbedError::ModelLoad {
                path,
                models_dir: models_dir.clone(),
                reason: e.to_string(),
            })
        };
        let tokenizer = TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        // Without explicit mean pooling fastembed silently takes the CLS token.
        let model = UserDefinedEmbeddingModel::new(read("model.onnx")?, tokenizer)
            .with_pooling(Pooling::Mean);
        let options = InitOptionsUserDefined::new()
            .with_environment(environment)
            .with_max_length(MAX_LENGTH);
        let model = TextEmbedding::try_new_from_user_defined(model, options).map_err(|e| {
            EmbedError::ModelLoad {
                path: dir.clone(),
                models_dir: models_dir.clone(),
                reason: e.to_string(),
            }
        })?;
        Ok(Self {
            model,
            model_id: paths.model_id().to_string(),
            batch_size: BATCH_SIZE,
        })
    }
}

impl Embedder {
    /// Overrides [`BATCH_SIZE`]; for measuring memory use against throughput.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }
}

impl TextEmbedder for Embedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }
    fn dimension(&self) -> usize {
        MODEL_DIMENSION
    }
    fn embed(&mut self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let vectors = self
            .model
            .embed(texts, Some(self.batch_size))
            .map_err(|e| EmbedError::Inference {
                reason: e.to_string(),
            })?;
        if vectors.len() != texts.len() || vectors.iter().any(|v| v.len() != MODEL_DIMENSION) {
            return Err(EmbedError::Inference {
                reason: format!(
                    "model returned {} vectors of unexpected shape for {} texts",
                    vectors.len(),
                    texts.len()
                ),
            });
        }
        Ok(vectors)
    }
}

static RUNTIME: Mutex<Option<(PathBuf, Environment)>> = Mutex::new(None);

/// ONNX Runtime allows one library and one environment per process: load it on first use and
/// hand the same environment to every later model.
fn runtime_environment(paths: &ModelPaths) -> Result<Environment, EmbedError> {
    let mut slot = RUNTIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runtime = paths.runtime();
    if let Some((loaded, environment)) = slot.as_ref() {
        if *loaded == runtime {
            return Ok(environment.clone());
        }
        return Err(EmbedError::OtherRuntimeLoaded {
            loaded: loaded.clone(),
            requested: runtime,
        });
    }
    let failed = |reason: String| EmbedError::RuntimeLoad {
        path: runtime.clone(),
        models_dir: paths.models_dir().to_path_buf(),
        reason,
    };
    let environment = ort::init_from(&runtime)
        .map_err(|e| failed(e.to_string()))?
        .with_name("engram")
        .build()
        .map_err(|e| failed(e.to_string()))?;
    *slot = Some((runtime, environment.clone()));
    Ok(environment)
}

static SHARED: Mutex<Option<(ModelPaths, Arc<Mutex<Embedder>>)>> = Mutex::new(None);

/// The process-wide model, loaded on first use. A failed load is not remembered, so fetching
/// the assets and asking again works without a restart; a successful one is reused.
pub fn shared_embedder(paths: &ModelPaths) -> Result<Arc<Mutex<Embedder>>, EmbedError> {
    let mut slot = SHARED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((loaded, embedder)) = slot.as_ref() {
        if loaded == paths {
            return Ok(embedder.clone());
        }
        // Another models directory or model id: load it (the runtime check above still applies).
    }
    let embedder = Arc::new(Mutex::new(Embedder::load(paths)?));
    *slot = Some((paths.clone(), embedder.clone()));
    Ok(embedder)
}
