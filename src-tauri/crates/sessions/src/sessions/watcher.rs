//! Keeping the index current while transcripts are written.
//!
//! Owns: a background thread that catches up once, then watches each enabled source's root
//! recursively (a root that does not exist yet is watched for through its nearest existing
//! ancestor and picked up when it appears), collects filesystem events for a short debounce
//! window, indexes the touched files incrementally and reports each change through the
//! caller's callback. Dropping the `SessionWatcher` stops the thread.
//! Deliberately does not: name events for a UI, print, or read the clock (the caller's clock
//! dates a transcript's disappearance).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use super::sources::discover;
use super::store::tail::FileChange;
use super::{
    IndexSummary, SessionChange, SessionError, SessionIndex, SessionsConfig, SourceKind,
    SourceRoots,
};

/// Events closer together than this are indexed as one batch.
const DEBOUNCE: Duration = Duration::from_millis(150);
/// A steady stream of writes is still indexed at least this often.
const MAX_BATCH_DELAY: Duration = Duration::from_millis(500);
/// How often missing roots are looked for even without an event.
const ROOT_RECHECK: Duration = Duration::from_secs(2);

enum Signal {
    Fs(notify::Result<notify::Event>),
    Stop,
}

pub struct SessionWatcher {
    stop: Sender<Signal>,
    thread: Option<JoinHandle<()>>,
}

type OnChange = Box<dyn Fn(SessionChange) + Send + 'static>;

/// The current time in unix seconds, as the caller keeps it (the system clock in the binaries, a
/// fixed or stepped one in tests).
pub type UnixClock = Box<dyn Fn() -> i64 + Send + 'static>;

impl SessionWatcher {
    /// Starts watching. The first catch-up run happens on the background thread; its changes
    /// are reported like any other.
    pub fn start(
        db: PathBuf,
        roots: SourceRoots,
        cfg: SessionsConfig,
        clock: UnixClock,
        on_change: OnChange,
    ) -> Result<SessionWatcher, SessionError> {
        let (tx, rx) = channel();
        let fs_tx = tx.clone();
        let watcher = notify::recommended_watcher(move |event| {
            let _ = fs_tx.send(Signal::Fs(event));
        })
        .map_err(|e| SessionError::Watch {
            path: roots.ambry.clone(),
            reason: e.to_string(),
        })?;
        // Open once here so a broken or locked database is reported to the caller, not lost.
        let index = SessionIndex::open(&db)?;
        let mut state = WatchState {
            index,
            roots,
            cfg,
            clock,
            watcher,
            pending: Vec::new(),
            watched: Vec::new(),
            on_change,
        };
        state.place_watches();
        let thread = std::thread::Builder::new()
            .name("ambry-session-watch".into())
            .spawn(move || state.run(rx))
            .map_err(|e| SessionError::Watch {
                path: db,
                reason: e.to_string(),
            })?;
        Ok(SessionWatcher {
            stop: tx,
            thread: Some(thread),
        })
    }
}

impl Drop for SessionWatcher {
    fn drop(&mut self) {
        let _ = self.stop.send(Signal::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct WatchState {
    index: SessionIndex,
    roots: SourceRoots,
    cfg: SessionsConfig,
    clock: UnixClock,
    watcher: RecommendedWatcher,
    /// Roots that do not exist yet, and the ancestor watched in their place.
    pending: Vec<(SourceKind, PathBuf, Option<PathBuf>)>,
    watched: Vec<PathBuf>,
    on_change: OnChange,
}

impl WatchState {
    fn run(mut self, rx: Receiver<Signal>) {
        for source in self.enabled() {
            self.catch_up(source);
        }
        let mut batch: BTreeSet<PathBuf> = BTreeSet::new();
        let mut batch_started: Option<Instant> = None;
        let mut last_recheck = Instant::now();
        loop {
            let wait = match batch_started {
                Some(t) => DEBOUNCE.min(MAX_BATCH_DELAY.saturating_sub(t.elapsed())),
                None => ROOT_RECHECK,
            };
            match rx.recv_timeout(wait) {
                Ok(Signal::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(Signal::Fs(Ok(event))) => {
                    if matches!(event.kind, notify::EventKind::Access(_)) {
                        continue;
                    }
                    batch.extend(event.paths);
                    batch_started.get_or_insert_with(Instant::now);
                    if batch_started.is_some_and(|t| t.elapsed() < MAX_BATCH_DELAY) {
                        continue;
                    }
                }
                Ok(Signal::Fs(Err(e))) => (self.on_change)(SessionChange::Failed {
                    message: format!("watch error: {e}"),
                }),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if !batch.is_empty() {
                let paths = std::mem::take(&mut batch);
                batch_started = None;
                self.index_paths(paths);
            }
            if !self.pending.is_empty() && last_recheck.elapsed() >= ROOT_RECHECK {
                last_recheck = Instant::now();
                self.recheck_pending();
            }
        }
    }

    fn enabled(&self) -> Vec<SourceKind> {
        SourceKind::ALL
            .into_iter()
            .filter(|s| self.cfg.sources.contains(s))
            .collect()
    }

    /// Watches every enabled root that exists; remembers the others with a watched ancestor.
    fn place_watches(&mut self) {
        for source in self.enabled() {
            let Some(root) = self.roots.root(source).map(Path::to_path_buf) else {
                continue;
            };
            if root.is_dir() {
                self.watch(&root, RecursiveMode::Recursive);
            } else {
                let ancestor = root
                    .ancestors()
                    .skip(1)
                    .find(|a| a.is_dir())
                    .map(Path::to_path_buf);
                if let Some(a) = &ancestor {
                    self.watch(a, RecursiveMode::NonRecursive);
                }
                self.pending.push((source, root, ancestor));
            }
        }
    }

    fn watch(&mut self, dir: &Path, mode: RecursiveMode) {
        if self.watched.iter().any(|w| w == dir) {
            return;
        }
        match self.watcher.watch(dir, mode) {
            Ok(()) => self.watched.push(dir.to_path_buf()),
            Err(e) => (self.on_change)(SessionChange::Failed {
                message: format!("cannot watch {}: {e}", dir.display()),
            }),
        }
    }

    /// Roots that appeared get a recursive watch and a catch-up run; the rest move their
    /// stand-in watch closer as intermediate directories appear.
    fn recheck_pending(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        for (source, root, ancestor) in pending {
            if root.is_dir() {
                self.watch(&root, RecursiveMode::Recursive);
                self.catch_up(source);
            } else {
                let nearest = root
                    .ancestors()
                    .skip(1)
                    .find(|a| a.is_dir())
                    .map(Path::to_path_buf);
                if nearest != ancestor {
                    if let Some(a) = &nearest {
                        self.watch(a, RecursiveMode::NonRecursive);
                    }
                }
                self.pending.push((source, root, nearest));
            }
        }
    }

    /// Indexes everything of `source` that is new since the last run and vaults what is gone,
    /// reporting each file it indexes.
    fn catch_up(&mut self, source: SourceKind) {
        let roots = self.roots.clone();
        let now = (self.clock)();
        let on_change = &self.on_change;
        let result = self.index.index_reporting(
            &roots,
            &self.cfg,
            Some(source),
            now,
            &mut |source, path, change, _| report(on_change, source, path, change.clone()),
        );
        if let Err(e) = result {
            (self.on_change)(SessionChange::Failed {
                message: e.to_string(),
            });
        }
    }

    fn index_paths(&mut self, paths: BTreeSet<PathBuf>) {
        if !self.pending.is_empty() {
            self.recheck_pending();
        }
        let roots = self.roots.clone();
        let mut full: BTreeSet<SourceKind> = BTreeSet::new();
        for path in paths {
            let Some(source) = roots
                .source_of(&path)
                .filter(|s| self.cfg.sources.contains(s))
            else {
                continue;
            };
            let Some(root) = roots.root(source) else {
                continue;
            };
            if path.is_dir() || path == root {
                // A new directory may already hold files written before its watch existed.
                full.insert(source);
            } else if discover::is_transcript(source, root, &path) {
                self.index_one(source, &path);
            } else if !path.exists() {
                // A removed directory: the vault keeps whatever was indexed under it.
                match self.index.vault_missing(&path, (self.clock)()) {
                    Ok(true) => (self.on_change)(SessionChange::Removed { path }),
                    Ok(false) => {}
                    Err(e) => (self.on_change)(SessionChange::Failed {
                        message: e.to_string(),
                    }),
                }
            }
        }
        for source in full {
            self.catch_up(source);
        }
    }

    fn index_one(&mut self, source: SourceKind, path: &Path) {
        let mut summary = IndexSummary::default();
        match self.index.index_file(
            source,
            path,
            self.cfg.include_tools,
            (self.clock)(),
            &mut summary,
        ) {
            Ok(change) => {
                for problem in summary.problems.iter().filter(|p| p.error.is_some()) {
                    let reason = problem.error.as_deref().unwrap_or_default();
                    (self.on_change)(SessionChange::Failed {
                        message: format!("cannot read {}: {reason}", problem.path.display()),
                    });
                }
                report(&self.on_change, source, path, change)
            }
            Err(e) => (self.on_change)(SessionChange::Failed {
                message: e.to_string(),
            }),
        }
    }
}

fn report(on_change: &OnChange, source: SourceKind, path: &Path, change: FileChange) {
    match change {
        FileChange::Indexed {
            session_id,
            messages,
        } => on_change(SessionChange::Indexed {
            source,
            session_id,
            path: path.to_path_buf(),
            messages,
        }),
        FileChange::Removed => on_change(SessionChange::Removed {
            path: path.to_path_buf(),
        }),
        FileChange::Unchanged => {}
    }
}
