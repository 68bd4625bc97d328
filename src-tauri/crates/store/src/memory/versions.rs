//! A store's archived versions: listing them, reading one, making one current again, deleting
//! one for good, and pruning them by policy.
//!
//! Owns: the `Store` operations on `.archive/` and `PruneReport`.
//! Deliberately does not: name or parse version files or decide which versions a policy drops
//! (see `archive`), or write current memories other than by restoring (see `store`).

use std::fs;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::archive::{self, ArchivedVersion, PrunePolicy, ARCHIVE_DIR};
use super::frontmatter;
use super::naming::{canonical_type, validate_name};
use super::scope_files::{read_memory_file, read_text};
use super::scope_write::{archive_current, lock_and_tidy, lock_scope, regenerate_index};
use super::{SaveOutcome, Scope, ScopeFilter, Store, StoreError};
use crate::storage::{sync_dir, write_atomic};

#[derive(Debug, Clone, Serialize)]
pub struct PruneReport {
    pub dry_run: bool,
    pub removed: Vec<ArchivedVersion>,
    pub kept: usize,
}

impl Store {
    /// Archived versions, newest first; all memories of the scope or one.
    pub fn versions(
        &self,
        scope: Scope,
        name: Option<&str>,
    ) -> Result<Vec<ArchivedVersion>, StoreError> {
        if let Some(name) = name {
            validate_name(name)?;
        }
        let archive_dir = self.dir(scope)?.join(ARCHIVE_DIR);
        let entries = match fs::read_dir(&archive_dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io("read", &archive_dir, e)),
        };
        let mut versions = Vec::new();
        for entry in entries.flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let Some((memory, version, archived_at)) = archive::parse_version_file_name(&file_name)
            else {
                continue;
            };
            if name.is_some_and(|n| n != memory) {
                continue;
            }
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            versions.push(ArchivedVersion {
                scope,
                name: memory,
                version,
                archived_at,
                path: entry.path(),
                size,
            });
        }
        versions.sort_by(|a, b| b.version.cmp(&a.version).then_with(|| a.name.cmp(&b.name)));
        Ok(versions)
    }

    /// The text of one archived version (for previews and diffs).
    pub fn version_text(
        &self,
        scope: Scope,
        name: &str,
        version: &str,
    ) -> Result<String, StoreError> {
        let path = self.version_path(scope, name, version)?;
        read_text(&path)
    }

    /// Makes an archived version current again; the current file, if any, is archived first.
    /// A version that is not a valid memory of that name is refused before anything is written
    /// (restoring it would replace a working memory with one that cannot be read).
    pub fn restore(
        &self,
        scope: Scope,
        name: &str,
        version: &str,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        let source = self.version_path(scope, name, version)?;
        let dir = self.prepare_dir(scope)?;
        let _lock = lock_and_tidy(&dir, now)?;
        let text = read_text(&source)?;
        let refuse = |reason: String| StoreError::UnparseableVersion {
            name: name.to_string(),
            version: version.to_string(),
            path: source.display().to_string(),
            reason,
        };
        let doc = frontmatter::parse(&text).map_err(|e| refuse(e.to_string()))?;
        if doc.name != name {
            return Err(refuse(format!("its `name: {}` is not `{name}`", doc.name)));
        }
        canonical_type(&doc.kind).map_err(|e| refuse(e.to_string()))?;
        let current = dir.join(format!("{name}.md"));
        let created = fs::symlink_metadata(&current).is_err();
        let archived = if created {
            None
        } else {
            Some(archive_current(&dir, name, now)?)
        };
        write_atomic(&dir, &format!("{name}.md"), text.as_bytes())
            .map_err(|e| StoreError::io("write", &current, e))?;
        regenerate_index(scope, &dir)?;
        let memory = read_memory_file(scope, &current)
            .map_err(|reason| StoreError::UnparseableExisting {
                path: current.display().to_string(),
                reason,
            })?
            .ok_or_else(|| StoreError::NotFound {
                scope: format!("the {scope} scope"),
                name: name.to_string(),
            })?;
        Ok(SaveOutcome {
            memory,
            created,
            archived,
            changed: true,
        })
    }

    /// Deletes one archived version for good (a leaked secret's copy); the person asked for it
    /// by name and version, so nothing else is touched.
    pub fn purge_version(
        &self,
        scope: Scope,
        name: &str,
        version: &str,
    ) -> Result<PathBuf, StoreError> {
        let path = self.version_path(scope, name, version)?;
        let dir = self.dir(scope)?;
        let _lock = lock_scope(&dir)?;
        fs::remove_file(&path).map_err(|e| StoreError::io("remove", &path, e))?;
        sync_dir(&dir.join(ARCHIVE_DIR)).map_err(|e| StoreError::io("sync", &dir, e))?;
        Ok(path)
    }

    /// Removes archived versions beyond the policy; with `dry_run`, only reports them.
    pub fn prune(
        &self,
        filter: ScopeFilter,
        policy: &PrunePolicy,
        now: DateTime<Utc>,
        dry_run: bool,
    ) -> Result<PruneReport, StoreError> {
        let mut removed = Vec::new();
        let mut kept = 0;
        for scope in self.scopes(filter) {
            let dir = self.dir(scope)?;
            let _lock = if dry_run || !dir.exists() {
                None
            } else {
                Some(lock_and_tidy(&dir, now)?)
            };
            let versions = self.versions(scope, None)?;
            let doomed: Vec<ArchivedVersion> =
                archive::select_for_prune(&versions, policy, now, |_, name| {
                    dir.join(format!("{name}.md")).exists()
                })
                .into_iter()
                .cloned()
                .collect();
            kept += versions.len() - doomed.len();
            if !dry_run {
                for v in &doomed {
                    fs::remove_file(&v.path).map_err(|e| StoreError::io("remove", &v.path, e))?;
                }
                if !doomed.is_empty() {
                    sync_dir(&dir.join(ARCHIVE_DIR))
                        .map_err(|e| StoreError::io("sync", &dir, e))?;
                }
            }
            removed.extend(doomed);
        }
        Ok(PruneReport {
            dry_run,
            removed,
            kept,
        })
    }

    fn version_path(&self, scope: Scope, name: &str, version: &str) -> Result<PathBuf, StoreError> {
        validate_name(name)?;
        let well_formed = version.split_once('.').is_some_and(|(n, t)| {
            !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && !t.is_empty()
                && t.bytes().all(|b| b.is_ascii_hexdigit())
        });
        let path = self
            .dir(scope)?
            .join(ARCHIVE_DIR)
            .join(archive::version_file_name(name, version));
        if !well_formed || !path.is_file() {
            return Err(StoreError::VersionNotFound {
                name: name.to_string(),
                version: crate::error::quoted(version),
            });
        }
        Ok(path)
    }
}
