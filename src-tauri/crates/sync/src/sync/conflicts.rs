//! The "changed on two machines" conflicts a sync files for the review inbox (DESIGN §15).
//!
//! Owns: a conflict's record and its id (a hash of the path and both texts, so a sync that
//! merges the same conflict again after an interruption files it once), adding the new ones
//! to `sync/conflicts.json`, and settling one: dismissed (the file stays as it is) or the other
//! version used instead.
//! Deliberately does not: decide what conflicts (see `merge`) or show them.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::allowlist::Kind;
use super::merge::Conflict;
use super::state::{lock_sync_dir, read_conflicts, write_conflicts, SyncConflict};
use super::SyncError;
use ambry_store::home::AmbryHome;
use ambry_store::memory::{Scope, Store, SyncedFile};
use ambry_store::project::Project;

/// The record a merge's conflict is filed as.
pub(super) fn conflict_record(c: &Conflict, now: DateTime<Utc>) -> SyncConflict {
    use sha2::{Digest, Sha256};
    let path = c.kind.tree_path();
    let mut hasher = Sha256::new();
    hasher.update(path.as_bytes());
    hasher.update([0]);
    hasher.update(c.kept.text.as_bytes());
    hasher.update([0]);
    hasher.update(c.other.text.as_bytes());
    let id: String = hasher.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let (scope, project, name) = match &c.kind {
        Kind::Memory { project, name } => (
            Some(if project.is_some() {
                Scope::Project
            } else {
                Scope::User
            }),
            project.clone(),
            Some(name.clone()),
        ),
        other => (None, other.project().map(str::to_string), None),
    };
    SyncConflict {
        id,
        at: now,
        path,
        scope,
        project,
        name,
        kept: c.kept.clone(),
        other: c.other.clone(),
    }
}

/// Adds the conflicts not filed yet to `sync/conflicts.json`.
pub(super) fn record_conflicts(home: &AmbryHome, new: &[SyncConflict]) -> Result<(), SyncError> {
    if new.is_empty() {
        return Ok(());
    }
    let dir = home.sync_dir();
    let mut all = read_conflicts(&dir);
    for c in new {
        if !all.iter().any(|known| known.id == c.id) {
            all.push(c.clone());
        }
    }
    write_conflicts(&dir, &all)
}

/// Removes a settled conflict from the inbox; false when no conflict has that id.
pub fn dismiss_conflict(home: &AmbryHome, id: &str) -> Result<bool, SyncError> {
    let dir = home.sync_dir();
    let _lock = lock_sync_dir(&dir)?;
    let mut all = read_conflicts(&dir);
    let before = all.len();
    all.retain(|c| c.id != id);
    if all.len() == before {
        return Ok(false);
    }
    write_conflicts(&dir, &all)?;
    Ok(true)
}

/// Settles a conflict the other way: the version that lost (archived) becomes the memory again
/// — written through the store, the current one archived — or, when the other side deleted
/// it, the memory is forgotten. The next sync sends it. Only memory conflicts; `None` when no
/// conflict has that id.
pub fn use_other(
    home: &AmbryHome,
    id: &str,
    now: DateTime<Utc>,
) -> Result<Option<SyncConflict>, SyncError> {
    let dir = home.sync_dir();
    let _lock = lock_sync_dir(&dir)?;
    let mut all = read_conflicts(&dir);
    let Some(at) = all.iter().position(|c| c.id == id) else {
        return Ok(None);
    };
    let conflict = all[at].clone();
    let (Some(scope), Some(name)) = (conflict.scope, conflict.name.clone()) else {
        return Err(SyncError::NotAMemory {
            path: conflict.path.clone(),
        });
    };
    let store = Store::new(
        home.clone(),
        conflict.project.clone().map(|slug| Project {
            slug,
            root: PathBuf::new(),
            remote: None,
        }),
    );
    let path = store.dir(scope)?.join(format!("{name}.md"));
    let current = match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(SyncError::io("read", &path, e)),
    };
    let new = (!conflict.other.deleted).then(|| conflict.other.text.clone().into_bytes());
    let file = SyncedFile {
        name,
        expected: current,
        new,
    };
    for (_, outcome) in store.apply_synced(scope, vec![file], Vec::new(), now)? {
        outcome?;
    }
    all.remove(at);
    write_conflicts(&dir, &all)?;
    Ok(Some(conflict))
}
