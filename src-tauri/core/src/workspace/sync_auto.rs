//! The automatic sync of a long-lived front end (DESIGN §15 `[sync] auto`): a thread that syncs
//! shortly after local changes settle and every `interval_minutes`, while sync is set up and
//! `auto` is on. Hooks never wait for it: it runs beside them, and a sync holds its own lock.
//!
//! Owns: the thread, its wake-ups (a change, the schedule's next moment, the handle dropped)
//! and reading the configuration afresh before each sync (turning `auto` off stops it).
//! Deliberately does not: decide when a sync is due (`sync::auto::Schedule` does) or report to
//! a person (the front end gets each outcome through `on_done`).

use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Workspace, WorkspaceError};
use ambry_sync::sync::auto::Schedule;
use ambry_sync::sync::SyncReport;

enum Wake {
    Changed,
    Stop,
}

/// The running automatic sync; dropping it stops the thread.
pub struct AutoSync {
    wake: Sender<Wake>,
    thread: Option<JoinHandle<()>>,
}

impl AutoSync {
    /// A memory changed here: sync once changes settle.
    pub fn changed(&self) {
        let _ = self.wake.send(Wake::Changed);
    }
}

impl Drop for AutoSync {
    fn drop(&mut self) {
        let _ = self.wake.send(Wake::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Workspace {
    /// Starts the automatic sync; `on_done` hears each sync's outcome (the app's status line).
    /// `settle`: how long local changes must be quiet before they are sent (the app passes
    /// `sync::auto::SETTLE`).
    pub fn start_auto_sync(
        self: &Arc<Self>,
        settle: Duration,
        on_done: impl Fn(Result<SyncReport, WorkspaceError>) + Send + 'static,
    ) -> AutoSync {
        let (wake, wakes) = channel();
        let workspace: Weak<Workspace> = Arc::downgrade(self);
        let thread = std::thread::Builder::new()
            .name("ambry-auto-sync".into())
            .spawn(move || {
                let interval = |ws: &Workspace| {
                    let minutes = ws.config().map(|c| c.sync.interval_minutes).unwrap_or(10);
                    Duration::from_secs(minutes.saturating_mul(60))
                };
                let Some(ws) = workspace.upgrade() else {
                    return;
                };
                let mut schedule = Schedule::new(interval(&ws), settle, Instant::now());
                drop(ws);
                loop {
                    let wait = schedule
                        .next_due()
                        .saturating_duration_since(Instant::now());
                    match wakes.recv_timeout(wait) {
                        Ok(Wake::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                        Ok(Wake::Changed) => {
                            schedule.changed(Instant::now());
                            continue;
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                    }
                    let Some(ws) = workspace.upgrade() else {
                        return;
                    };
                    schedule.set_interval(interval(&ws));
                    let started = Instant::now();
                    let on = ws
                        .config()
                        .is_ok_and(|c| c.sync.auto && c.sync.remote().is_some());
                    if on {
                        on_done(ws.sync_now(chrono::Utc::now(), false));
                    }
                    schedule.synced(started, Instant::now());
                }
            })
            .ok();
        AutoSync { wake, thread }
    }
}
