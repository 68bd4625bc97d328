//! What the shell keeps for the life of the window: the one workspace every command, the
//! compose service and the watchers share, the watchers themselves, and the first-paint signal.
//!
//! Owns: holding those handles, and running blocking core work off the main thread (work nobody
//! waits on with the keyboard at a lower CPU priority).
//! Deliberately does not: decide anything about memories, or read the environment beyond the
//! one `LaunchEnv::from_process()` at start-up; core does.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use ambry_core::FrontEndCode;
use ambry_core::MemoryWatcher;
use ambry_core::SessionWatcher;
use ambry_core::Workspace;

use crate::ipc_error::{front_end, IpcResult};

pub struct AppState {
    /// When the process started (for the first-paint measurement).
    pub started: Instant,
    /// Set once the window has shown its first view; background work waits for it.
    first_paint: (Mutex<bool>, Condvar),
    pub workspace: Arc<Workspace>,
    pub watcher: Mutex<Option<MemoryWatcher>>,
    pub session_watcher: Mutex<Option<SessionWatcher>>,
    /// Personal sync's automatic runs while the app is open (DESIGN §15 `[sync] auto`).
    pub auto_sync: Mutex<Option<ambry_core::AutoSync>>,
    /// The runs of the person's agent going now (distill, annotate, ask), each stopped by
    /// `agent_run_stop`.
    pub agent_runs: AgentRuns,
}

/// The agent runs going now, each with its own stop (a `StopHandle` once stopped stops every
/// later call too, so each run gets a fresh one) and the name the UI gave it, so a dialog's Stop
/// stops its own run and not another one going at the same time.
#[derive(Default)]
pub struct AgentRuns(
    Mutex<Vec<(u64, Option<String>, ambry_core::StopHandle)>>,
    AtomicU64,
);

impl AgentRuns {
    /// A stop for a new run named `name` (any string the UI chose), kept until the returned
    /// guard drops.
    pub fn begin(&self, name: Option<String>) -> AgentRun<'_> {
        let id = self.1.fetch_add(1, Ordering::SeqCst);
        let stop = ambry_core::StopHandle::default();
        self.lock().push((id, name, stop.clone()));
        AgentRun {
            runs: self,
            id,
            stop,
        }
    }

    /// Stops the run named `name`, or every run going now when `name` is `None`; how many.
    pub fn stop(&self, name: Option<&str>) -> usize {
        let runs = self.lock();
        let mut stopped = 0;
        for (_, run, stop) in runs.iter() {
            if name.is_none() || run.as_deref() == name {
                stop.stop();
                stopped += 1;
            }
        }
        stopped
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, Vec<(u64, Option<String>, ambry_core::StopHandle)>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One run's stop; the run is forgotten when this drops.
pub struct AgentRun<'a> {
    runs: &'a AgentRuns,
    id: u64,
    pub stop: ambry_core::StopHandle,
}

impl Drop for AgentRun<'_> {
    fn drop(&mut self) {
        self.runs.lock().retain(|(id, _, _)| *id != self.id);
    }
}

impl AppState {
    pub fn new(workspace: Arc<Workspace>) -> AppState {
        AppState {
            started: Instant::now(),
            first_paint: (Mutex::new(false), Condvar::new()),
            workspace,
            watcher: Mutex::new(None),
            session_watcher: Mutex::new(None),
            auto_sync: Mutex::new(None),
            agent_runs: AgentRuns::default(),
        }
    }

    /// The window has shown its first view.
    pub fn mark_first_paint(&self) {
        let (painted, signal) = &self.first_paint;
        *painted.lock().unwrap_or_else(|p| p.into_inner()) = true;
        signal.notify_all();
    }

    /// Blocks until the first view is shown, or `limit` passed (a window that never paints
    /// must not keep the compose service from agents).
    pub fn wait_for_first_paint(&self, limit: Duration) {
        let (painted, signal) = &self.first_paint;
        let guard = painted.lock().unwrap_or_else(|p| p.into_inner());
        let _ = signal.wait_timeout_while(guard, limit, |painted| !*painted);
    }
}

/// Runs blocking core work on the blocking pool so the window never waits on the disk.
pub async fn off_main<T, F>(app: tauri::AppHandle, work: F) -> IpcResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Workspace) -> IpcResult<T> + Send + 'static,
{
    use tauri::Manager;
    tauri::async_runtime::spawn_blocking(move || work(&app.state::<AppState>().workspace))
        .await
        .map_err(task_ended)?
}

/// A blocking task that panicked or was cancelled, as the UI reads it.
fn task_ended(e: tauri::Error) -> crate::ipc_error::IpcError {
    front_end(
        FrontEndCode::Internal,
        format!("the task stopped unexpectedly: {e}"),
    )
}

/// [`off_main`] for a run of the person's agent named `run` (by the UI): `work` gets a stop that
/// `agent_run_stop` pulls (the agent's whole process group is killed and the run ends with
/// `stopped`).
pub async fn off_main_stoppable<T, F>(
    app: tauri::AppHandle,
    run: Option<String>,
    work: F,
) -> IpcResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Workspace, &ambry_core::StopHandle) -> IpcResult<T> + Send + 'static,
{
    use tauri::Manager;
    tauri::async_runtime::spawn_blocking(move || {
        let state = app.state::<AppState>();
        let run = state.agent_runs.begin(run);
        work(&state.workspace, &run.stop)
    })
    .await
    .map_err(task_ended)?
}

/// [`off_main`] for work nobody waits on with the keyboard, such as the review's count after
/// every change (seconds of CPU at ten thousand memories): on a thread of its own at a lower CPU
/// priority, so on a busy machine a keystroke's search and the window's drawing go first. With
/// the cores free it runs as fast as ever.
pub async fn in_background<T, F>(app: tauri::AppHandle, work: F) -> IpcResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Workspace) -> IpcResult<T> + Send + 'static,
{
    use tauri::Manager;
    let lost = |what: String| {
        front_end(
            FrontEndCode::Internal,
            format!("the background task stopped unexpectedly: {what}"),
        )
    };
    // A thread of its own: a lowered priority cannot be raised again without privileges, so a
    // pooled thread would keep it for whatever ran on it next.
    tauri::async_runtime::spawn_blocking(move || {
        std::thread::Builder::new()
            .name("ambry-background".into())
            .spawn(move || {
                lower_this_threads_priority();
                work(&app.state::<AppState>().workspace)
            })
            .map_err(|e| lost(e.to_string()))?
            .join()
            .map_err(|_| lost("it panicked".into()))?
    })
    .await
    .map_err(|e| lost(e.to_string()))?
}

/// The niceness background work runs at (0 is normal, 19 the lowest).
const BACKGROUND_NICENESS: libc::c_int = 10;

/// Lowers the calling thread's CPU priority (Linux keeps a niceness per thread).
fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid takes no arguments and cannot fail; setpriority only reads its
        // arguments, and lowering one's own priority needs no privilege.
        let failed = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, BACKGROUND_NICENESS) != 0
        };
        if failed {
            tracing::debug!(
                "background work runs at normal priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}
