//! The semantic slot of one retrieval call: which strategy runs, and the cosine scores when it
//! is semantic.
//!
//! Owns: loading the shared model on demand for a query, and degrading to bm25 with a one-line
//! note when the model is absent, fails, or the embedding call errors.
//! Deliberately does not: tokenize, score bm25 or fuse (the ranker's blend/rrf do that).

use serde::Serialize;

use super::{
    resolve_strategy, semantic_scores, shared_embedder, ModelPaths, StrategyChoice, VectorCache,
};
use super::{EffectiveStrategy, EmbedError};
use crate::config::Strategy;
use crate::memory::Memory;

/// What the ranker needs from embeddings for one query.
#[derive(Debug, Clone, Serialize)]
pub struct SemanticSlot {
    pub choice: StrategyChoice,
    /// One entry per doc when `choice.strategy` is semantic; `None` inside means "no vector of
    /// this model" (that memory contributes nothing semantic).
    pub scores: Option<Vec<Option<f32>>>,
}

/// Resolves `configured` and, for semantic, scores `docs` against `query`.
pub fn semantic_slot(
    configured: Strategy,
    query: &str,
    docs: &[Memory],
    models: &ModelPaths,
    cache: &mut VectorCache,
) -> SemanticSlot {
    if matches!(configured, Strategy::Keyword | Strategy::Bm25) {
        return SemanticSlot {
            choice: resolve_strategy(configured, Ok(())),
            scores: None,
        };
    }
    let scored: Result<Vec<Option<f32>>, EmbedError> =
        shared_embedder(models).and_then(|embedder| {
            let mut embedder = embedder.lock().map_err(|_| EmbedError::Inference {
                reason: "the embedding model crashed earlier in this process".into(),
            })?;
            semantic_scores(query, docs, &mut *embedder, cache)
        });
    match scored {
        Ok(scores) => SemanticSlot {
            choice: resolve_strategy(configured, Ok(())),
            scores: Some(scores),
        },
        Err(e) => {
            let choice = resolve_strategy(configured, Err(&e));
            debug_assert_eq!(choice.strategy, EffectiveStrategy::Bm25);
            SemanticSlot {
                choice,
                scores: None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_the_model_auto_degrades_to_bm25_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let models = ModelPaths::new(dir.path(), "all-MiniLM-L6-v2");
        let slot = semantic_slot(
            Strategy::Auto,
            "anything",
            &[],
            &models,
            &mut VectorCache::new(),
        );
        assert_eq!(slot.choice.strategy, EffectiveStrategy::Bm25);
        assert!(slot.choice.note.unwrap().contains("fetch-models.sh"));
        assert!(slot.scores.is_none());
    }

    #[test]
    fn lexical_strategies_never_touch_the_model() {
        let models = ModelPaths::new("/nonexistent", "all-MiniLM-L6-v2");
        let slot = semantic_slot(Strategy::Bm25, "q", &[], &models, &mut VectorCache::new());
        assert_eq!(
            slot.choice,
            StrategyChoice {
                strategy: EffectiveStrategy::Bm25,
                note: None
            }
        );
    }
}
