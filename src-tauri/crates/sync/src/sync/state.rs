//! What a sync leaves in the home for `sync status`, `doctor`, the review inbox and the next
//! sync: `sync/state.json` (remote, last success, last attempt and its error, ahead/behind,
//! files refused from the remote and held back from it), `sync/conflicts.json` (the
//! "changed on two machines" conflicts a person has not settled yet) and `sync/applying.json`
//! (the merge being applied to the store, so an interrupted sync is finished by the next).
//!
//! Owns: those files' shapes, the lock that lets one sync of a home run at a time, reading them leniently (a damaged file reads as empty: it only
//! describes; the repository and the store hold the truth) and writing them atomically.
//! Deliberately does not: decide any of what they say.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::inspect::Refused;
use super::merge::Side;
use super::SyncError;
use ambry_store::memory::Scope;
use ambry_store::storage::{write_atomic, LockFailure, ScopeLock};

pub const STATE_FILE: &str = "state.json";
pub const CONFLICTS_FILE: &str = "conflicts.json";
pub const APPLYING_FILE: &str = "applying.json";
/// How long a sync waits for another one of the same home.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// An error as `sync status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastError {
    pub code: String,
    pub message: String,
    pub at: DateTime<Utc>,
}

/// Where sync stands.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncState {
    pub remote: Option<String>,
    /// The last sync that finished.
    pub last_sync: Option<DateTime<Utc>>,
    pub last_attempt: Option<DateTime<Utc>>,
    /// Why the last attempt failed; `None` after a success.
    pub last_error: Option<LastError>,
    /// Commits here the remote does not have, and there that this home does not.
    pub ahead: u64,
    pub behind: u64,
    /// Files the remote sent that were not taken (kept until that path arrives clean).
    #[serde(default)]
    pub refused: Vec<Refused>,
    /// Files of this home not sent (a secret, too large), as of the last sync.
    #[serde(default)]
    pub withheld: Vec<Refused>,
}

/// A file both machines changed, waiting for a person (the review inbox's "changed on two
/// machines"): the version kept in the file and the other, archived.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncConflict {
    pub id: String,
    pub at: DateTime<Utc>,
    /// Its path in the sync tree (`memory/x.md`, `projects/<slug>/memory/x.md`, `USER.md`).
    pub path: String,
    /// The memory's scope and name, when it is a memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub kept: Side,
    pub other: Side,
}

/// The merge commit whose tree is being written into the store, and the local commit it was
/// made from (what the store held when the sync read it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applying {
    pub merge: String,
    pub local: String,
}

pub fn read_state(dir: &Path) -> SyncState {
    read_json(&dir.join(STATE_FILE)).unwrap_or_default()
}

pub fn write_state(dir: &Path, state: &SyncState) -> Result<(), SyncError> {
    write_json(dir, STATE_FILE, state)
}

pub fn read_conflicts(dir: &Path) -> Vec<SyncConflict> {
    read_json(&dir.join(CONFLICTS_FILE)).unwrap_or_default()
}

pub fn write_conflicts(dir: &Path, conflicts: &[SyncConflict]) -> Result<(), SyncError> {
    write_json(dir, CONFLICTS_FILE, &conflicts)
}

pub fn read_applying(dir: &Path) -> Option<Applying> {
    read_json(&dir.join(APPLYING_FILE))
}

pub fn write_applying(dir: &Path, applying: Option<&Applying>) -> Result<(), SyncError> {
    match applying {
        Some(a) => write_json(dir, APPLYING_FILE, a),
        None => match std::fs::remove_file(dir.join(APPLYING_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(SyncError::io("remove", &dir.join(APPLYING_FILE), e))
            }
            _ => Ok(()),
        },
    }
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    let bytes = ambry_store::memory::bounded_read::read_regular(path, 64 * 1024 * 1024).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn write_json<T: Serialize>(dir: &Path, file: &str, value: &T) -> Result<(), SyncError> {
    let text = serde_json::to_vec_pretty(value).map_err(|e| SyncError::Io {
        action: "encode",
        path: dir.join(file).display().to_string(),
        source: std::io::Error::other(e),
    })?;
    ambry_store::storage::create_private_dir_all(dir)
        .map_err(|e| SyncError::io("create", dir, e))?;
    write_atomic(dir, file, &text).map_err(|e| SyncError::io("write", &dir.join(file), e))
}

/// The lock that lets one sync of a home run at a time (and a dismissal wait for it).
pub fn lock_sync_dir(dir: &Path) -> Result<ScopeLock, SyncError> {
    ScopeLock::acquire_within(dir, LOCK_WAIT).map_err(|failure| match failure {
        LockFailure::TimedOut { holder } => SyncError::Busy {
            holder: holder.unwrap_or_else(|| "another process".into()),
        },
        LockFailure::Io(e) => SyncError::io("lock", dir, e),
    })
}
