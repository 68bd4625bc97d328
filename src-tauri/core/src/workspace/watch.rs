//! Watching the home for changes made outside this process, for any front end that stays up
//! (the app, `ambry serve`, `ambry sessions watch`).
//!
//! Owns: starting the memory watcher so every change reaches this workspace's caches before the
//! front end hears of it (and the caches then trust it instead of checking files per search),
//! and starting the session watcher from this workspace's index, transcript folders and config.
//! Deliberately does not: say how a front end shows a change (an event, a line on stdout) or
//! decide what changed (`memory::watch`, `sessions::watcher` do).

use std::sync::Arc;
use std::time::Duration;

use super::{Workspace, WorkspaceError};
use ambry_sessions::sessions::{SessionChange, SessionWatcher};
use ambry_store::memory::{MemoryChange, MemoryWatcher, StoreError};

impl Workspace {
    /// Watches every memory directory of the home (created if missing). Each change is applied
    /// to this workspace's caches, then given to `on_change`; a burst of file events within
    /// `debounce` is one change (a front end that redraws wants a longer one than a service that
    /// answers hooks). The caches then trust the watcher instead of a stat per memory per call
    /// (at 10k memories those stats were most of a served turn); every write through Ambry is
    /// seen at once anyway (it moves its directory's stamp), the watcher covers hand edits.
    /// Watching stops when the returned watcher is dropped.
    pub fn watch_memories(
        self: &Arc<Self>,
        debounce: Duration,
        on_change: impl Fn(MemoryChange) + Send + 'static,
    ) -> Result<MemoryWatcher, WorkspaceError> {
        let root = self.home.root();
        std::fs::create_dir_all(root).map_err(|e| StoreError::io("create", root, e))?;
        // Weak: the watcher must not keep a workspace alive that its front end dropped.
        let workspace = Arc::downgrade(self);
        let forward = Box::new(move |change: MemoryChange| {
            if let Some(workspace) = workspace.upgrade() {
                workspace.memory_changed(&change);
            }
            on_change(change);
        });
        let watcher = MemoryWatcher::start(&self.home, debounce, forward)?;
        self.trust_watcher();
        Ok(watcher)
    }

    /// Indexes new transcript lines of every source switched on in config within about a
    /// second of their write, giving each change to `on_change`; `clock` is the time a
    /// transcript found gone is vaulted at (Unix seconds). Stops when the watcher is dropped.
    pub fn watch_sessions(
        &self,
        clock: impl Fn() -> i64 + Send + 'static,
        on_change: impl Fn(SessionChange) + Send + 'static,
    ) -> Result<SessionWatcher, WorkspaceError> {
        let config = self.config()?;
        Ok(SessionWatcher::start(
            self.home.index_db(),
            self.session_roots(),
            config.sessions,
            Box::new(clock),
            Box::new(on_change),
        )?)
    }
}
