//! Where a front end's operation reads and writes memories: a `Place`.
//!
//! Owns: the handle a front end gets from the workspace (`place_at`, `place_of`) and hands back
//! to its operations, and what a front end may ask of it without writing — which project it is,
//! which scopes it has, where each scope's files and generated index are.
//! Deliberately does not: read or write a memory. Only the workspace writes through the store
//! inside, so no front end can save a memory without its vector, its team record, its usage
//! and the caches that follow it.

use std::path::PathBuf;

use ambry_store::memory::index::INDEX_FILE;
use ambry_store::memory::{Scope, ScopeFilter, Store};
use ambry_store::project::Project;

use super::WorkspaceError;

/// The user scope and, when there is one, a project's team and project scopes.
#[derive(Debug, Clone)]
pub struct Place {
    store: Store,
}

/// A place over a store a caller built itself: only code that depends on the store's crate
/// (the workspace's tests and benches; never a front end) has one to give.
impl From<&Store> for Place {
    fn from(store: &Store) -> Self {
        Place::new(store.clone())
    }
}

impl Place {
    pub(super) fn new(store: Store) -> Self {
        Place { store }
    }

    /// The store inside, for the workspace's operations only.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// The project, when the place has one.
    pub fn project(&self) -> Option<&Project> {
        self.store.project()
    }

    /// The scopes `filter` names that this place has (team and project only with a project).
    pub fn scopes(&self, filter: ScopeFilter) -> Vec<Scope> {
        self.store.scopes(filter)
    }

    /// The folder of `scope`'s memory files; an error when the place has no such scope.
    pub fn dir(&self, scope: Scope) -> Result<PathBuf, WorkspaceError> {
        Ok(self.store.dir(scope)?)
    }

    /// `scope`'s generated index (`MEMORY.md`), the file an agent reads first.
    pub fn index_file(&self, scope: Scope) -> Result<PathBuf, WorkspaceError> {
        Ok(self.dir(scope)?.join(INDEX_FILE))
    }

    /// The text of `scope`'s generated index, read bounded; `None` before it is first written.
    pub fn index_text(&self, scope: Scope) -> Result<Option<String>, WorkspaceError> {
        Ok(self.store.index_text(scope)?)
    }
}
