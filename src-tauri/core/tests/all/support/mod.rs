//! What the model-backed tests share: the real model's paths, memories built in memory, and the
//! independent paraphrase set.
#![allow(dead_code)] // each test binary uses its own subset

pub mod context_sim;
pub mod eval_set;
pub mod paraphrase_set;

use std::path::{Path, PathBuf};

use ambry_core::{AmbryHome, Workspace, WorkspaceError};
use ambry_rank::embed::ModelPaths;
use ambry_sessions::sessions::SourceRoots;
use ambry_store::memory::Store;
use ambry_store::memory::{Memory, Scope};

/// A home and the user, Claude Code and Codex transcript folders, all inside `dir`: never the
/// person's own.
pub fn home_and_roots(dir: &Path) -> (AmbryHome, SourceRoots) {
    let home = AmbryHome::new(dir.join("ambry"));
    let roots = SourceRoots::resolve(
        &home,
        Some(dir.join("user")),
        Some(dir.join("claude")),
        Some(dir.join("codex")),
    );
    (home, roots)
}

/// The real all-MiniLM-L6-v2 from `AMBRY_TEST_MODELS` (scripts/test.sh fetches it and sets it);
/// a missing model fails the test saying what to run, never skips it.
pub fn model_paths() -> ModelPaths {
    let dir = std::env::var_os("AMBRY_TEST_MODELS").map(PathBuf::from).unwrap_or_else(|| {
        panic!("AMBRY_TEST_MODELS is not set: run `scripts/fetch-models.sh DIR` and set AMBRY_TEST_MODELS=DIR (scripts/test.sh does both)")
    });
    let paths = ModelPaths::new(&dir, "all-MiniLM-L6-v2");
    if let Err(e) = paths.check() {
        panic!(
            "embedding assets missing under AMBRY_TEST_MODELS={}: {e}",
            dir.display()
        );
    }
    paths
}

/// User-scope memories from (name, description, body), with paths inside `dir` so their
/// sidecars land there.
pub fn memories(dir: &Path, items: &[(&str, &str, &str)]) -> Vec<Memory> {
    items
        .iter()
        .map(|(name, description, body)| {
            Memory::sketch(
                Scope::User,
                name.to_string(),
                "note",
                description.to_string(),
                body.to_string(),
                dir.join(format!("{name}.md")),
            )
        })
        .collect()
}

/// The store under a workspace's places, for the tests that look below the façade (a front end
/// never has one: it gets a `Place`).
pub trait StoreBelow {
    /// The store of [`Workspace::place_of`].
    fn store_for(&self, slug: Option<&str>) -> Result<Store, WorkspaceError>;
}

impl StoreBelow for Workspace {
    fn store_for(&self, slug: Option<&str>) -> Result<Store, WorkspaceError> {
        let project = match slug {
            Some(slug) => Some(self.project(slug)?.to_project()),
            None => None,
        };
        Ok(Store::new(self.home().clone(), project))
    }
}

/// This crate's directory: the one cargo runs the test from now, else the one it was built in
/// (a build cache shared between checkouts may hold a binary built in another, gone since).
pub fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into)
}
