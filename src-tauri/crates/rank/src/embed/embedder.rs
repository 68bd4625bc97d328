//! The embedding model, loaded lazily and once per process.
//!
//! Owns: loading ONNX Runtime with `ort::init_from` (an error, never the panic a bare
//! `ORT_DYLIB_PATH` gives), building fastembed's user-defined all-MiniLM-L6-v2 with mean pooling
//! and max length 256, the batch size, and letting go of an idle model (a long-lived process
//! should not hold a couple of hundred megabytes for a model nobody asked for in a while; the
//! next call loads it again).
//! Deliberately does not: decide what to embed or where vectors go (reindex and sidecar do).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
/// The session setting that stops idle intra-op threads from busy-waiting (see `load_model`).
const NO_SPINNING: (&str, &str) = ("session.intra_op.allow_spinning", "0");

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
    /// `None` after `release_if_idle`; loaded again by the next `embed`.
    model: Option<TextEmbedding>,
    paths: ModelPaths,
    model_id: String,
    batch_size: usize,
    last_used: Instant,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("model_id", &self.model_id)
            .field("loaded", &self.model.is_some())
            .finish()
    }
}

impl Embedder {
    /// Loads the runtime (once per process; ONNX Runtime cannot be swapped afterwards) and the model.
    pub fn load(paths: &ModelPaths) -> Result<Self, EmbedError> {
        Ok(Self {
            model: Some(load_model(paths)?),
            paths: paths.clone(),
            model_id: paths.model_id().to_string(),
            batch_size: BATCH_SIZE,
            last_used: Instant::now(),
        })
    }

    /// Drops the model if it has not been used for `idle` as of `now`; returns whether it did.
    pub fn release_if_idle(&mut self, idle: Duration, now: Instant) -> bool {
        if self.model.is_some() && now.saturating_duration_since(self.last_used) >= idle {
            self.model = None;
            return_freed_memory();
            return true;
        }
        false
    }

    pub fn is_loaded(&self) -> bool {
        self.model.is_some()
    }
}

fn load_model(paths: &ModelPaths) -> Result<TextEmbedding, EmbedError> {
    paths.check()?;
    // The tokenizer hands every batch to a thread pool, even a prompt of one text: the calling
    // thread waits for a pool thread to be scheduled, twice per query (encode, then pad), which
    // on two busy cores cost more than tokenizing. A batch of eight memories tokenizes in well
    // under a millisecond on one thread; the model's run dominates either way. The tokens are
    // the same.
    tokenizers::parallelism::set_parallelism(false);
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
    let model =
        UserDefinedEmbeddingModel::new(read("model.onnx")?, tokenizer).with_pooling(Pooling::Mean);
    // ONNX Runtime's intra-op threads spin after each run waiting for the next one: on a small
    // machine they then take the cores from the scan that follows the query's embedding and
    // from the window drawing its results (measured at 10k memories on 2 busy cores: the query's
    // embedding 14 → 6 ms, the whole semantic search 30–43 → 12–30 ms). The arithmetic and its
    // results are the same either way.
    let options = InitOptionsUserDefined::new()
        .with_environment(environment)
        .with_max_length(MAX_LENGTH)
        .with_session_config(NO_SPINNING.0, NO_SPINNING.1);
    TextEmbedding::try_new_from_user_defined(model, options).map_err(|e| EmbedError::ModelLoad {
        path: dir.clone(),
        models_dir: models_dir.clone(),
        reason: e.to_string(),
    })
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
        self.last_used = Instant::now();
        let model = match &mut self.model {
            Some(model) => model,
            empty => empty.insert(load_model(&self.paths)?),
        };
        let vectors =
            model
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
        .with_name("ambry")
        .build()
        .map_err(|e| failed(e.to_string()))?;
    *slot = Some((runtime, environment.clone()));
    Ok(environment)
}

static SHARED: Mutex<Option<(ModelPaths, Arc<Mutex<Embedder>>)>> = Mutex::new(None);

/// Drops the process-wide model if nobody used it for `idle` as of `now` (and nobody is using
/// it right now); returns whether it did. Holders keep their handle: the next `embed` reloads.
pub fn release_idle_shared_model(idle: Duration, now: Instant) -> bool {
    let slot = SHARED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let Some((_, embedder)) = slot.as_ref() else {
        return false;
    };
    // Busy means in use: not idle.
    embedder
        .try_lock()
        .is_ok_and(|mut embedder| embedder.release_if_idle(idle, now))
}

/// Hands freed pages back to the system. glibc keeps freed heap memory for reuse, so without
/// this a released model stays resident: measured with `examples/embed_bench`, RSS 180 MB
/// loaded, 135 MB after the drop alone, 29 MB after the trim.
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own arenas; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Checks now and then (a quarter of `idle`, between 1 s and 1 min) whether the process-wide
/// model has been idle for `idle`, and releases it if so. For long-lived processes (the app,
/// `ambry serve`); the thread lives as long as the process.
pub fn release_idle_model_in_background(idle: Duration) {
    let tick = (idle / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
    let spawned = std::thread::Builder::new()
        .name("ambry-model-idle".into())
        .spawn(move || loop {
            std::thread::sleep(tick);
            if release_idle_shared_model(idle, Instant::now()) {
                tracing::info!(
                    "embedding model unused for {idle:?}: released; the next search loads it again"
                );
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("the idle model stays loaded: cannot start its timer: {e}");
    }
}

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
