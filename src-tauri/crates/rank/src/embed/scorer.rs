//! The ranker's semantic slot filled with the local model: `rank::SemanticScorer` over sidecars.
//!
//! Owns: embedding the query with the shared model (the recent queries' vectors kept: a prompt
//! that refers back is ranked with the person's previous prompt, which the turn before embedded)
//! and reading each document's vector through the mtime+size cache; a sidecar of another model
//! yields `None` (contributes nothing).
//! Deliberately does not: fuse or pick the strategy (the ranker does, and notes fallbacks).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{shared_embedder, EmbedError, Embedder, ModelPaths, TextEmbedder, VectorCache};
use crate::rank::{DocTerms, Semantic, SemanticScorer};

/// Holds the loaded model and a vector cache; keep one per process (the app) or per call (CLI).
pub struct ModelScorer {
    embedder: Arc<Mutex<Embedder>>,
    cache: Mutex<VectorCache>,
    /// The latest queries (trimmed) and their unit vectors, newest last: `when_similarities`
    /// follows `similarities` of the same query, and a turn that refers back asks about the
    /// previous turn's prompt again.
    recent: Mutex<VecDeque<(String, Arc<[f32]>)>>,
    /// Queries this scorer ran the model for (a test's witness that a query was not embedded
    /// twice).
    embedded: AtomicU64,
    phrases: Mutex<super::phrases::PhraseVectors>,
}

/// Queries whose vectors are kept: a few sessions' latest prompts.
const RECENT_QUERIES: usize = 32;

impl ModelScorer {
    /// Loads (or reuses) the process-wide model.
    pub fn load(models: &ModelPaths) -> Result<Self, EmbedError> {
        Ok(Self {
            embedder: shared_embedder(models)?,
            cache: Mutex::new(VectorCache::new()),
            recent: Mutex::new(VecDeque::new()),
            embedded: AtomicU64::new(0),
            phrases: Mutex::new(Default::default()),
        })
    }
}

impl ModelScorer {
    /// The loaded model itself, for embedding other text than memories (session messages).
    pub fn embedder(&self) -> Arc<Mutex<Embedder>> {
        self.embedder.clone()
    }

    /// Sidecars are taken as current until `invalidate` names them (a watcher reports changes).
    pub fn trust_watcher(self) -> Self {
        self.vectors().trust_watcher();
        self
    }

    /// The sidecar of `memory_path` changed.
    pub fn invalidate(&self, memory_path: &std::path::Path) {
        self.vectors().invalidate(memory_path);
    }

    /// Any sidecar may have changed.
    pub fn invalidate_all(&self) {
        self.vectors().invalidate_all();
    }

    /// How many queries this scorer has run the model for.
    pub fn queries_embedded(&self) -> u64 {
        self.embedded.load(Ordering::Relaxed)
    }

    /// The unit vector of `query`: a recent one's as kept, else embedded (with the model
    /// `embedder` holds) and kept.
    fn query_vector(&self, embedder: &mut Embedder, query: &str) -> Result<Arc<[f32]>, String> {
        let key = query.trim();
        let kept = {
            let recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
            recent
                .iter()
                .rev()
                .find(|(q, _)| q == key)
                .map(|(_, v)| v.clone())
        };
        if let Some(v) = kept {
            return Ok(v);
        }
        let v: Arc<[f32]> = super::normalized(
            embedder
                .embed(&[query.to_string()])
                .map_err(|e| e.to_string())?
                .pop()
                .unwrap_or_default(),
        )
        .into();
        self.embedded.fetch_add(1, Ordering::Relaxed);
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        if recent.len() >= RECENT_QUERIES {
            recent.pop_front();
        }
        recent.push_back((key.to_string(), v.clone()));
        Ok(v)
    }

    fn vectors(&self) -> std::sync::MutexGuard<'_, VectorCache> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl SemanticScorer for ModelScorer {
    fn similarities(
        &self,
        query: &str,
        docs: &[Arc<DocTerms>],
    ) -> Result<Vec<Option<f32>>, String> {
        let mut embedder = self
            .embedder
            .lock()
            .map_err(|_| "the embedding model crashed earlier in this process".to_string())?;
        let query_vector = self.query_vector(&mut embedder, query)?;
        let model_id = embedder.model_id().to_string();
        // The model is shared (the compose service uses it too): free it before the scan.
        drop(embedder);
        let mut cache = self.vectors();
        // Cached vectors are unit length: with a unit query the cosine is the dot product.
        Ok(cache
            .vectors_of(docs, &model_id)
            .iter()
            .map(|v| v.as_ref().map(|v| super::dot(v, &query_vector).max(0.0)))
            .collect())
    }

    fn when_similarities(
        &self,
        query: &str,
        docs: &[Arc<DocTerms>],
    ) -> Result<Vec<Option<f32>>, String> {
        let mut embedder = self
            .embedder
            .lock()
            .map_err(|_| "the embedding model crashed earlier in this process".to_string())?;
        let query_vector = self.query_vector(&mut embedder, query)?;
        self.phrases.lock().unwrap_or_else(|p| p.into_inner()).best(
            &mut *embedder,
            docs,
            &query_vector,
        )
    }
}

/// The ranker's `Semantic` argument for a loaded scorer or the reason there is none.
pub fn semantic_arg<'a>(scorer: &'a Result<ModelScorer, EmbedError>) -> Semantic<'a> {
    match scorer {
        Ok(s) => Semantic::Available(s),
        Err(e) => Semantic::Unavailable(e),
    }
}
