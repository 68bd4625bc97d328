//! Memories through the workspace: list, read, create, save, rename, forget, and the archive
//! (versions, diff, restore, prune, and purging a leaked secret's copy) — each write with its
//! vector and the caches told at once.
//!
//! Owns: the row shape front ends list memories in, writing a memory's vector with every
//! write (a restore included, so a restored memory is found semantically without a reindex),
//! and the archive policy from config.
//! Deliberately does not: decide a memory's rules (the store does) or choose the scope's
//! project (callers pass a `Store` from `store_at` or `store_of`).

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_rank::embed::{self, SavedWithVector, VectorStatus};
use ambry_store::memory::{
    leaked_secrets, version_against_current, ForgetOutcome, LeakedSecret, Memory, MemoryDraft,
    MemoryFile, PrunePolicy, PruneReport, Renamed, Scope, ScopeFilter, Store, StoreError,
    VersionDiff,
};

/// One memory as a list shows it — the one row the CLI's `--json`, MCP and the app share; a
/// file that does not parse is listed with its error.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryRow {
    pub scope: Scope,
    /// The project's slug for project-scope rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub description: Option<String>,
    #[serde(serialize_with = "seconds")]
    pub created: Option<DateTime<Utc>>,
    #[serde(serialize_with = "seconds")]
    pub updated: Option<DateTime<Utc>>,
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The memory that replaces this one: it is no longer injected (DESIGN §14).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// From this day on it is expired and no longer injected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<chrono::NaiveDate>,
    /// Why it is no longer injected, in words (`superseded by NAME`, `expired DATE`), when it is
    /// superseded or expired as of the list's day: kept, but never injected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retired: Option<String>,
    /// The last time an agent or a person used it (filled by `list_with_usage`).
    #[serde(serialize_with = "seconds")]
    pub last_used: Option<DateTime<Utc>>,
    /// Uses in the 30 days before the list was made (filled by `list_with_usage`).
    pub uses_30d: u64,
    /// A team memory's state in git: `new`, `modified` or `committed` (filled by
    /// `list_with_usage`; absent when git cannot say, and for the other scopes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git: Option<&'static str>,
}

/// A row's times as every front end prints them: RFC 3339 to the second, in UTC, so the
/// CLI's `--json`, MCP and the app read one shape.
fn seconds<S: serde::Serializer>(
    time: &Option<DateTime<Utc>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match time {
        Some(t) => serializer.serialize_str(&ambry_store::memory::frontmatter::rfc3339(*t)),
        None => serializer.serialize_none(),
    }
}

impl MemoryRow {
    fn new(file: MemoryFile, project: Option<&str>, today: Option<chrono::NaiveDate>) -> MemoryRow {
        let memory = file.parsed.as_ref().ok();
        MemoryRow {
            scope: file.scope,
            project: if file.scope.of_a_project() {
                project.map(str::to_string)
            } else {
                None
            },
            kind: memory.map(|m| m.kind.clone()),
            description: memory.map(|m| m.description.clone()),
            created: memory.and_then(|m| m.created),
            updated: memory.and_then(|m| m.updated),
            superseded_by: memory.and_then(|m| m.lifecycle.superseded_by.clone()),
            expires: memory.and_then(|m| m.lifecycle.expires),
            retired: memory
                .and_then(|m| m.retirement(today))
                .map(|r| r.to_string()),
            last_used: None,
            uses_30d: 0,
            git: None,
            error: file.parsed.as_ref().err().map(ToString::to_string),
            name: file.name,
            path: file.path,
        }
    }
}

/// A rename's result and the new name's vector.
#[derive(Debug, Clone, Serialize)]
pub struct RenamedWithVector {
    #[serde(flatten)]
    pub renamed: Renamed,
    pub vector: VectorStatus,
}

/// One archived version as the archive view lists it.
#[derive(Debug, Clone, Serialize)]
pub struct VersionRow {
    pub scope: Scope,
    pub name: String,
    pub version: String,
    pub archived_at: DateTime<Utc>,
    pub size: u64,
    pub path: PathBuf,
    /// False when the memory itself is gone (forgotten): restoring brings it back.
    pub current_exists: bool,
}

impl Workspace {
    /// One write of a memory and its vector, and what every write is followed by: the caches
    /// told, and a team memory the person wrote marked as seen by them.
    pub(super) fn write_memory(
        &self,
        store: &Store,
        write: impl FnOnce(
            &ambry_rank::embed::ModelPaths,
        ) -> Result<SavedWithVector, ambry_store::memory::StoreError>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let models = self.model_paths(&self.config_or_retrieval_defaults()?);
        let saved = write(&models)?;
        self.memories_written();
        self.own_team_write(store, &saved);
        Ok(saved)
    }

    /// The memories of `filter`'s scopes; `retired` says superseded (a list without a day
    /// cannot say expired: `list_with_usage` can).
    pub fn list(
        &self,
        place: &Place,
        filter: ScopeFilter,
    ) -> Result<Vec<MemoryRow>, WorkspaceError> {
        let store = place.store();
        self.list_on(store, filter, None)
    }

    pub(super) fn list_on(
        &self,
        store: &Store,
        filter: ScopeFilter,
        today: Option<chrono::NaiveDate>,
    ) -> Result<Vec<MemoryRow>, WorkspaceError> {
        let slug = store.project().map(|p| p.slug.as_str());
        Ok(store
            .list(filter)?
            .into_iter()
            .map(|f| MemoryRow::new(f, slug, today))
            .collect())
    }

    /// One memory; without a scope the project's copy shadows the user's.
    pub fn get(
        &self,
        place: &Place,
        scope: Option<Scope>,
        name: &str,
    ) -> Result<Memory, WorkspaceError> {
        let store = place.store();
        Ok(store.get(scope, name)?)
    }

    /// A new memory (refused when the name is taken, decided under the scope lock), with its vector.
    pub fn create(
        &self,
        place: &Place,
        scope: Scope,
        draft: MemoryDraft,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        self.write_memory(store, |models| {
            embed::create_with_vector(store, scope, draft, now, models)
        })
    }

    /// Creates or overwrites (the prior version archived), with its vector.
    pub fn save(
        &self,
        place: &Place,
        scope: Scope,
        draft: MemoryDraft,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        self.write_memory(store, |models| {
            embed::save_with_vector(store, scope, draft, now, models)
        })
    }

    /// The detail pane's in-place edit when the name changed: renames `old` to the draft's name
    /// keeping its history, links and retrieval-test cases (as [`Workspace::rename_memory`]),
    /// then saves the rest of the draft over it (the renamed version archived first).
    pub fn rename(
        &self,
        place: &Place,
        scope: Scope,
        old: &str,
        draft: MemoryDraft,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        // A draft the save would refuse (a secret, a bad field) refuses the rename too, so a
        // refused edit leaves the memory as it was.
        let draft = ambry_store::memory::validate::validate_draft(draft)?;
        self.rename_memory(place, scope, old, &draft.name, now)?;
        self.save(place, scope, draft, now)
    }

    /// Renames a memory keeping its history, and updates the links and retrieval-test cases
    /// that name it (DESIGN §14); the vector is written under the new name.
    pub fn rename_memory(
        &self,
        place: &Place,
        scope: Scope,
        old: &str,
        new: &str,
        now: DateTime<Utc>,
    ) -> Result<RenamedWithVector, WorkspaceError> {
        let store = place.store();
        let models = self.model_paths(&self.config_or_retrieval_defaults()?);
        let mut renamed = store.rename_keeping_history(scope, old, new, now)?;
        self.usage_renamed(store, scope, old, new);
        let saved = embed::with_vector(renamed.outcome.clone(), &models);
        renamed.outcome = saved.outcome;
        self.memories_written();
        Ok(RenamedWithVector {
            renamed,
            vector: saved.vector,
        })
    }

    /// Archives and removes a memory.
    pub fn forget(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<ForgetOutcome, WorkspaceError> {
        let store = place.store();
        let outcome = store.forget(scope, name, now)?;
        self.memories_written();
        Ok(outcome)
    }

    /// Archived versions, newest first: every memory of the scope, or one.
    pub fn versions(
        &self,
        place: &Place,
        scope: Scope,
        name: Option<&str>,
    ) -> Result<Vec<VersionRow>, WorkspaceError> {
        let store = place.store();
        let dir = store.dir(scope)?;
        Ok(store
            .versions(scope, name)?
            .into_iter()
            .map(|v| VersionRow {
                current_exists: dir.join(format!("{}.md", v.name)).is_file(),
                scope: v.scope,
                name: v.name,
                version: v.version,
                archived_at: v.archived_at,
                size: v.size,
                path: v.path,
            })
            .collect())
    }

    /// An archived version against the current file.
    pub fn version_diff(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        version: &str,
    ) -> Result<VersionDiff, WorkspaceError> {
        let store = place.store();
        Ok(version_against_current(store, scope, name, version)?)
    }

    /// Makes an archived version current again (the current file archived first), with its vector.
    pub fn restore(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        version: &str,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        let models = self.model_paths(&self.config_or_retrieval_defaults()?);
        let restored = embed::restore_with_vector(store, scope, name, version, now, &models)?;
        self.memories_written();
        Ok(restored)
    }

    /// The doctor's secret finding for one scope: memory files and archived versions holding
    /// what the secret filter refuses now (each with what matched, masked), so a front end can
    /// show them and offer to purge the archived ones.
    pub fn leaked_secrets(
        &self,
        place: &Place,
        scope: Scope,
    ) -> Result<Vec<LeakedSecret>, WorkspaceError> {
        let store = place.store();
        Ok(leaked_secrets(store, scope)?)
    }

    /// Deletes one archived version for good (a leaked secret's copy) and returns the file it
    /// removed. Only that file goes: the memory and its other versions stay. Not undoable, so
    /// front ends ask first and say exactly what goes.
    pub fn purge_version(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        version: &str,
    ) -> Result<PathBuf, WorkspaceError> {
        let store = place.store();
        Ok(store.purge_version(scope, name, version)?)
    }

    /// The archive policy from config, with the caller's overrides.
    pub fn prune_policy(
        &self,
        keep: Option<usize>,
        older_than_days: Option<u64>,
    ) -> Result<PrunePolicy, WorkspaceError> {
        let archive = self.config()?.archive;
        let keep_versions = keep.unwrap_or(archive.keep_versions);
        if keep_versions == 0 {
            return Err(StoreError::InvalidField {
                field: "keep",
                reason: "must be at least 1: the newest version of each memory always stays".into(),
            }
            .into());
        }
        Ok(PrunePolicy {
            keep_versions,
            max_age_days: older_than_days.unwrap_or(archive.max_age_days),
        })
    }

    /// Removes archived versions beyond `policy` as of `now`; with `dry_run` only lists them.
    /// A front end that previews first passes the preview's `now` (its `as_of`) to the prune
    /// it confirms, so exactly the previewed versions go.
    pub fn prune(
        &self,
        place: &Place,
        filter: ScopeFilter,
        policy: &PrunePolicy,
        now: DateTime<Utc>,
        dry_run: bool,
    ) -> Result<PruneReport, WorkspaceError> {
        let store = place.store();
        Ok(store.prune(filter, policy, now, dry_run)?)
    }
}
