//! The Archive view: versions per memory, a diff against the current file, restore, prune.

use chrono::{DateTime, Utc};
use engram_core::embed::{restore_with_vector, SavedWithVector};
use engram_core::memory::{version_against_current, PrunePolicy, PruneReport, ScopeFilter, VersionDiff};
use serde::Serialize;
use tauri::AppHandle;

use super::Location;
use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct VersionRow {
    pub name: String,
    pub version: String,
    pub archived_at: DateTime<Utc>,
    pub size: u64,
    /// False when the memory itself is gone (forgotten): restoring brings it back.
    pub current_exists: bool,
}

#[tauri::command]
pub async fn list_versions(app: AppHandle, location: Location, name: Option<String>) -> IpcResult<Vec<VersionRow>> {
    off_main(app, move |state| {
        let store = state.store(location.project_slug())?;
        let dir = store.dir(location.scope)?;
        Ok(store
            .versions(location.scope, name.as_deref())?
            .into_iter()
            .map(|v| VersionRow {
                current_exists: dir.join(format!("{}.md", v.name)).is_file(),
                name: v.name,
                version: v.version,
                archived_at: v.archived_at,
                size: v.size,
            })
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn version_diff(app: AppHandle, location: Location, name: String, version: String) -> IpcResult<VersionDiff> {
    off_main(app, move |state| {
        let store = state.store(location.project_slug())?;
        Ok(version_against_current(&store, location.scope, &name, &version)?)
    })
    .await
}

/// Restores a version, as `engram memory archive restore` does (the current file is archived
/// first), and writes its vector so it ranks semantically at once.
#[tauri::command]
pub async fn restore_version(app: AppHandle, location: Location, name: String, version: String) -> IpcResult<SavedWithVector> {
    off_main(app, move |state| {
        let config = state.config()?;
        let store = state.store(location.project_slug())?;
        let restored = restore_with_vector(&store, location.scope, &name, &version, Utc::now(), &state.model_paths(&config))?;
        state.memories_written();
        Ok(restored)
    })
    .await
}

/// Prune by the configured policy (`archive.keep_versions`, `archive.max_age_days`);
/// `dry_run` lists exactly what would go.
#[tauri::command]
pub async fn prune_archive(app: AppHandle, location: Location, dry_run: bool) -> IpcResult<PruneReport> {
    off_main(app, move |state| {
        let config = state.config()?;
        let store = state.store(location.project_slug())?;
        let policy = PrunePolicy { keep_versions: config.archive.keep_versions, max_age_days: config.archive.max_age_days };
        let filter = match location.scope {
            engram_core::memory::Scope::User => ScopeFilter::User,
            engram_core::memory::Scope::Project => ScopeFilter::Project,
        };
        Ok(store.prune(filter, &policy, Utc::now(), dry_run)?)
    })
    .await
}
