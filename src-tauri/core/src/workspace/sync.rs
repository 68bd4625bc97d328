//! Personal sync through the workspace (DESIGN §15): set up, sync now, status, and the
//! "changed on two machines" conflicts the review inbox lists.
//!
//! Owns: reading `[sync] remote` from the configuration and writing it at `sync init` (a local
//! path made absolute, so the remote means the same from any working directory), and telling
//! the caches after a sync wrote memories.
//! Deliberately does not: hold any rule of sync (see `ambry_sync::sync`), schedule automatic syncs,
//! or read the clock (callers pass `now`).

use std::path::Path;

use chrono::{DateTime, Utc};

use super::{Workspace, WorkspaceError};
use ambry_store::memory::{Scope, Store};
use ambry_sync::sync::{self, SyncConflict, SyncError, SyncReport, SyncStatus};

impl Workspace {
    /// Sets up sync with `remote` (an empty remote gets this home's memories; one another
    /// machine already syncs to is adopted, its memories merged with these) and runs the first
    /// sync; the remote is written to `[sync] remote` once that sync succeeded. A relative
    /// local path is taken from `cwd`.
    pub fn sync_init(
        &self,
        remote: &str,
        cwd: &Path,
        now: DateTime<Utc>,
    ) -> Result<SyncReport, WorkspaceError> {
        sync::check_remote(remote)?;
        let local = cwd.join(remote);
        let remote = match local.canonicalize() {
            Ok(path) if !remote.contains("://") && local.is_dir() => path.display().to_string(),
            _ => remote.to_string(),
        };
        let report = self.sync_with(&remote, now, false)?;
        self.set_setting("sync", "remote", Some(&serde_json::Value::String(remote)))?;
        Ok(report)
    }

    /// Syncs with the configured remote now; with `dry_run`, only says what it would do.
    pub fn sync_now(
        &self,
        now: DateTime<Utc>,
        dry_run: bool,
    ) -> Result<SyncReport, WorkspaceError> {
        let config = self.config()?;
        let remote = config.sync.remote().ok_or(SyncError::NotInitialized)?;
        self.sync_with(remote, now, dry_run)
    }

    fn sync_with(
        &self,
        remote: &str,
        now: DateTime<Utc>,
        dry_run: bool,
    ) -> Result<SyncReport, WorkspaceError> {
        let result = sync::sync(self.home(), remote, now, dry_run);
        if !dry_run {
            // Even a failed sync may have written some memories before it stopped.
            self.memories_written();
            self.projects_written();
        }
        Ok(result?)
    }

    /// Where sync stands: last sync, ahead/behind, last error, refused files, conflicts.
    pub fn sync_status(&self) -> Result<SyncStatus, WorkspaceError> {
        let mut status = sync::status(self.home());
        let configured = self.config()?.sync.remote().map(str::to_string);
        // Set up means configured: a first sync that failed leaves a repository but no remote.
        status.initialized = status.initialized && configured.is_some();
        if status.initialized {
            status.unsent = sync::unsent(self.home());
        }
        if status.state.remote.is_none() {
            status.state.remote = configured;
        }
        Ok(status)
    }

    /// Whether sync is set up (`[sync] remote`).
    pub fn sync_configured(&self) -> Result<bool, WorkspaceError> {
        Ok(self.config()?.sync.remote().is_some())
    }

    /// The conflicts of `store`'s view: the user scope, its project, and the person's anchor.
    pub(super) fn sync_conflicts_of(&self, store: &Store) -> Vec<SyncConflict> {
        let slug = store.project().map(|p| p.slug.as_str());
        sync::conflicts(self.home())
            .into_iter()
            .filter(|c| match (c.scope, c.project.as_deref()) {
                (Some(Scope::User), _) | (None, None) => true,
                (_, project) => project == slug,
            })
            .collect()
    }

    /// Settles a "changed on two machines" conflict: it leaves the inbox (the file and the
    /// archived version stay as they are). False when no conflict has that id.
    pub fn sync_dismiss(&self, id: &str) -> Result<bool, WorkspaceError> {
        Ok(sync::dismiss_conflict(self.home(), id)?)
    }

    /// Settles a "changed on two machines" conflict the other way: the archived version
    /// becomes the memory again (or, deleted on the other side, the memory is forgotten), the
    /// current one archived; the next sync sends it. `None` when no conflict has that id.
    pub fn sync_use_other(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<SyncConflict>, WorkspaceError> {
        let settled = sync::use_other(self.home(), id, now)?;
        self.memories_written();
        Ok(settled)
    }
}
