//! Moving a memory between scopes with its history (DESIGN §15: `memory promote` from the
//! person's project scope to the team's, `demote` back): the file, its rule and other keys,
//! and every archived version.
//!
//! Owns: the order that never loses a version — the archived versions copied first, then the
//! memory written in its new scope (a name taken there is refused before anything moves), then
//! the old file archived and removed. A move interrupted part way leaves the memory in both
//! scopes (the new one shadowing or shadowed as scopes are), never in neither.
//! Deliberately does not: decide who may move (the workspace checks trust) or touch vectors.

use std::fs;

use chrono::{DateTime, Utc};

use super::archive;
use super::{MemoryDraft, RuleEdit, SaveOutcome, Scope, Store, StoreError};

impl Store {
    /// Moves `name` from scope `from` to scope `to` with its archived versions.
    pub fn move_scope(
        &self,
        name: &str,
        from: Scope,
        to: Scope,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        let memory = self.get(Some(from), name)?;
        if self.get(Some(to), name).is_ok() {
            return Err(StoreError::AlreadyExists {
                scope: to.to_string(),
                name: name.to_string(),
            });
        }
        let target = self.prepare_dir(to)?;
        let archive_to = archive::writable_archive_dir(&target)?;
        for version in self.versions(from, Some(name))? {
            let file = archive::version_file_name(name, &version.version);
            let destination = archive_to.join(&file);
            if destination.exists() {
                continue;
            }
            let bytes =
                fs::read(&version.path).map_err(|e| StoreError::io("read", &version.path, e))?;
            crate::storage::write_atomic(&archive_to, &file, &bytes)
                .map_err(|e| StoreError::io("write", &destination, e))?;
        }
        let draft = MemoryDraft::from(&memory);
        let rule = match &memory.lifecycle.enforce {
            Some(rule) => RuleEdit::Set(rule.clone()),
            None => RuleEdit::Keep,
        };
        let moved = self.create_ruled(to, draft, &rule, now)?;
        // The old scope's archive keeps its copies: a move never deletes history.
        self.forget(from, name, now)?;
        Ok(moved)
    }
}
