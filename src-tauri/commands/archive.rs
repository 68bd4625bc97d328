//! The Archive view: versions per memory, a diff against the current file, restore, prune,
//! and the doctor's secret finding with a purge of each leaked archived copy.

use ambry_core::SavedWithVector;
use ambry_core::VersionRow;
use ambry_core::{LeakedSecret, PruneReport, ScopeFilter, VersionDiff};
use chrono::{DateTime, Utc};
use serde::Serialize;
use tauri::AppHandle;

use super::Location;
use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[tauri::command]
pub async fn list_versions(
    app: AppHandle,
    location: Location,
    name: Option<String>,
) -> IpcResult<Vec<VersionRow>> {
    off_main(app, move |ws| {
        Ok(ws.versions(
            &ws.place_of(location.project_slug())?,
            location.scope,
            name.as_deref(),
        )?)
    })
    .await
}

#[tauri::command]
pub async fn version_diff(
    app: AppHandle,
    location: Location,
    name: String,
    version: String,
) -> IpcResult<VersionDiff> {
    off_main(app, move |ws| {
        Ok(ws.version_diff(
            &ws.place_of(location.project_slug())?,
            location.scope,
            &name,
            &version,
        )?)
    })
    .await
}

/// Restores a version, as `ambry memory archive restore` does (the current file is archived
/// first, and the restored memory gets its vector).
#[tauri::command]
pub async fn restore_version(
    app: AppHandle,
    location: Location,
    name: String,
    version: String,
) -> IpcResult<SavedWithVector> {
    off_main(app, move |ws| {
        Ok(ws.restore(
            &ws.place_of(location.project_slug())?,
            location.scope,
            &name,
            &version,
            Utc::now(),
        )?)
    })
    .await
}

/// A prune and the moment it was judged at: the confirmed prune passes `as_of` back, so exactly
/// the versions the preview listed go.
#[derive(Debug, Serialize)]
pub struct PruneView {
    #[serde(flatten)]
    pub report: PruneReport,
    pub as_of: DateTime<Utc>,
}

/// Prune by the configured policy (`archive.keep_versions`, `archive.max_age_days`);
/// `dry_run` lists exactly what would go.
#[tauri::command]
pub async fn prune_archive(
    app: AppHandle,
    location: Location,
    dry_run: bool,
    as_of: Option<DateTime<Utc>>,
) -> IpcResult<PruneView> {
    off_main(app, move |ws| {
        let place = ws.place_of(location.project_slug())?;
        let filter = ScopeFilter::from(location.scope);
        let as_of = as_of.unwrap_or_else(Utc::now);
        let report = ws.prune(
            &place,
            filter,
            &ws.prune_policy(None, None)?,
            as_of,
            dry_run,
        )?;
        Ok(PruneView { report, as_of })
    })
    .await
}

/// Memory files and archived versions of this scope holding what looks like a secret (the
/// doctor's finding), each with what matched, masked.
#[tauri::command]
pub async fn leaked_secrets(app: AppHandle, location: Location) -> IpcResult<Vec<LeakedSecret>> {
    off_main(app, move |ws| {
        Ok(ws.leaked_secrets(&ws.place_of(location.project_slug())?, location.scope)?)
    })
    .await
}

/// Deletes one archived version for good, once the person confirmed it (as `ambry memory
/// archive purge` does); returns the removed file. The memory and its other versions stay.
#[tauri::command]
pub async fn purge_version(
    app: AppHandle,
    location: Location,
    name: String,
    version: String,
) -> IpcResult<String> {
    off_main(app, move |ws| {
        let removed = ws.purge_version(
            &ws.place_of(location.project_slug())?,
            location.scope,
            &name,
            &version,
        )?;
        Ok(removed.display().to_string())
    })
    .await
}
