//! Where sync stands, for `sync status`, `doctor` and the app: what the last sync left in the
//! home, and what changed here since — never reaching the remote.
//!
//! Owns: `SyncStatus` and the `doctor` line for sync.
//! Deliberately does not: sync, or decide what a sync records (see `engine`).

use serde::Serialize;

use super::apply::changed_paths;
use super::export::export;
use super::repo::{Repo, BRANCH};
use super::state::{read_conflicts, read_state, SyncConflict, SyncState};
use ambry_store::home::AmbryHome;

/// `sync status`.
#[derive(Debug, Clone, Serialize)]
pub struct SyncStatus {
    pub initialized: bool,
    #[serde(flatten)]
    pub state: SyncState,
    /// Files of this home changed since the last sync (not sent yet); `None` when it cannot be
    /// told (not set up, git missing).
    pub unsent: Option<usize>,
    pub conflicts: Vec<SyncConflict>,
}

/// The "changed on two machines" conflicts still waiting.
pub fn conflicts(home: &AmbryHome) -> Vec<SyncConflict> {
    read_conflicts(&home.sync_dir())
}

/// Whether sync was set up in this home.
pub fn is_initialized(home: &AmbryHome) -> bool {
    home.sync_dir().join("repo").join("HEAD").is_file()
}

/// The state `sync status` shows, with the conflicts still waiting (without `unsent`).
pub fn status(home: &AmbryHome) -> SyncStatus {
    let dir = home.sync_dir();
    SyncStatus {
        initialized: is_initialized(home),
        state: read_state(&dir),
        unsent: None,
        conflicts: read_conflicts(&dir),
    }
}

/// How many travelling files of the home differ from what the sync branch holds (local git
/// only: the remote is not asked; it hashes every such file, so `status` leaves it out).
pub fn unsent(home: &AmbryHome) -> Option<usize> {
    let repo = Repo::existing(&home.sync_dir().join("repo"))?;
    let head = repo.resolve(BRANCH);
    let last = repo.tree_of(head.as_deref()).ok()?;
    let now = export(home, &repo, &last).ok()?;
    Some(changed_paths(&last, &now.tree).len())
}

/// The `doctor` line for sync: off until set up; then the last sync, or why the last attempt
/// failed (a warning: local work goes on, the next sync retries).
pub fn doctor_check(home: &AmbryHome, remote: Option<&str>) -> ambry_store::doctor::Check {
    use ambry_store::doctor::Check;
    let Some(remote) = remote else {
        return Check::off(
            "sync",
            "not set up (ambry sync init REMOTE to use several machines)",
        );
    };
    let status = status(home);
    let conflicts = match status.conflicts.len() {
        0 => String::new(),
        n => format!("; {n} conflict(s) waiting in ambry memory review"),
    };
    match (&status.state.last_error, status.state.last_sync) {
        (Some(e), _) => Check::warn(
            "sync",
            format!(
                "the last sync with {remote} failed ({}): {}{conflicts}",
                e.code, e.message
            ),
        ),
        (None, Some(at)) => Check::ok(
            "sync",
            format!(
                "{remote}, last synced {}{conflicts}",
                ambry_store::memory::frontmatter::rfc3339(at)
            ),
        ),
        (None, None) => Check::warn(
            "sync",
            format!("{remote}: never synced yet; run ambry sync"),
        ),
    }
}
