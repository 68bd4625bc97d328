//! Saving a memory and its vector together: the store writes the `.md`, then, when the model
//! is available, the `.vec` is written beside it.
//!
//! Owns: the rule that a save never fails because of embeddings; it says the vector was skipped
//! and why (reindex catches up later).
//! Deliberately does not: touch the store's write path; this wraps `Store::save`.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{shared_embedder, write_vector, ModelPaths};
use ambry_store::memory::{MemoryDraft, RuleEdit, SaveOutcome, Scope, Store, StoreError};

/// What happened to the memory's vector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum VectorStatus {
    Written,
    /// The sidecar already matched the saved text.
    Current,
    /// The memory was saved without a vector; `reason` says why and what to run.
    Skipped {
        reason: String,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct SavedWithVector {
    #[serde(flatten)]
    pub outcome: SaveOutcome,
    pub vector: VectorStatus,
}

/// `Store::save`, then the sidecar. Only a store failure is an error.
pub fn save_with_vector(
    store: &Store,
    scope: Scope,
    draft: MemoryDraft,
    now: DateTime<Utc>,
    models: &ModelPaths,
) -> Result<SavedWithVector, StoreError> {
    Ok(with_vector(store.save(scope, draft, now)?, models))
}

/// `Store::save_ruled` (the memory's rule set, removed or kept), then the sidecar.
pub fn save_ruled_with_vector(
    store: &Store,
    scope: Scope,
    draft: MemoryDraft,
    rule: &RuleEdit,
    now: DateTime<Utc>,
    models: &ModelPaths,
) -> Result<SavedWithVector, StoreError> {
    Ok(with_vector(
        store.save_ruled(scope, draft, &[], rule, now)?,
        models,
    ))
}

/// `Store::create` (refused when the name exists), then the sidecar.
pub fn create_with_vector(
    store: &Store,
    scope: Scope,
    draft: MemoryDraft,
    now: DateTime<Utc>,
    models: &ModelPaths,
) -> Result<SavedWithVector, StoreError> {
    create_ruled_with_vector(store, scope, draft, &RuleEdit::Keep, now, models)
}

/// `Store::create_ruled` (the memory and its rule in one write), then the sidecar.
pub fn create_ruled_with_vector(
    store: &Store,
    scope: Scope,
    draft: MemoryDraft,
    rule: &RuleEdit,
    now: DateTime<Utc>,
    models: &ModelPaths,
) -> Result<SavedWithVector, StoreError> {
    Ok(with_vector(
        store.create_ruled(scope, draft, rule, now)?,
        models,
    ))
}

/// `Store::restore` (the current file, if any, is archived first), then the sidecar: a restored
/// memory ranks semantically right away instead of waiting for a reindex.
pub fn restore_with_vector(
    store: &Store,
    scope: Scope,
    name: &str,
    version: &str,
    now: DateTime<Utc>,
    models: &ModelPaths,
) -> Result<SavedWithVector, StoreError> {
    Ok(with_vector(
        store.restore(scope, name, version, now)?,
        models,
    ))
}

/// A memory the store just wrote, with its sidecar written beside it.
pub fn with_vector(outcome: SaveOutcome, models: &ModelPaths) -> SavedWithVector {
    let vector = vector_for(&outcome, models);
    SavedWithVector { outcome, vector }
}

/// The sidecar for a memory the store just wrote (a save, a create, a rename, a restore).
fn vector_for(outcome: &SaveOutcome, models: &ModelPaths) -> VectorStatus {
    match shared_embedder(models) {
        Err(e) => VectorStatus::Skipped {
            reason: e.to_string(),
        },
        Ok(embedder) => match embedder.lock() {
            Err(_) => VectorStatus::Skipped {
                reason: "the embedding model crashed earlier in this process".into(),
            },
            Ok(mut embedder) => match write_vector(&outcome.memory, &mut *embedder) {
                Ok(true) => VectorStatus::Written,
                Ok(false) => VectorStatus::Current,
                Err(e) => VectorStatus::Skipped {
                    reason: format!("{e}; run `ambry memory reindex` later"),
                },
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_succeeds_and_says_the_vector_was_skipped_without_the_model() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(ambry_store::home::AmbryHome::new(home.path()), None);
        let draft = MemoryDraft {
            name: "deploy-steps".into(),
            kind: "project".into(),
            description: "how we ship".into(),
            body: "make release".into(),
            tags: vec![],
        };
        let models = ModelPaths::new(home.path().join("no-models"), "all-MiniLM-L6-v2");
        let saved = save_with_vector(&store, Scope::User, draft, Utc::now(), &models).unwrap();
        assert!(saved.outcome.memory.path.is_file());
        match saved.vector {
            VectorStatus::Skipped { reason } => {
                assert!(reason.contains("fetch-models.sh"), "{reason}")
            }
            other => panic!("expected skipped, got {other:?}"),
        }
        assert!(!saved.outcome.memory.path.with_extension("vec").exists());
    }

    #[test]
    fn restore_brings_a_forgotten_memory_back_and_says_what_happened_to_its_vector() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(ambry_store::home::AmbryHome::new(home.path()), None);
        let draft = MemoryDraft {
            name: "deploy-steps".into(),
            kind: "project".into(),
            description: "how we ship".into(),
            body: "make release".into(),
            tags: vec![],
        };
        store.save(Scope::User, draft, Utc::now()).unwrap();
        let forgotten = store
            .forget(Scope::User, "deploy-steps", Utc::now())
            .unwrap();
        let models = ModelPaths::new(home.path().join("no-models"), "all-MiniLM-L6-v2");
        let restored = restore_with_vector(
            &store,
            Scope::User,
            "deploy-steps",
            &forgotten.version,
            Utc::now(),
            &models,
        )
        .unwrap();
        assert_eq!(
            store
                .get(Some(Scope::User), "deploy-steps")
                .unwrap()
                .body
                .trim(),
            "make release"
        );
        assert!(
            matches!(restored.vector, VectorStatus::Skipped { .. }),
            "{:?}",
            restored.vector
        );
    }
}
