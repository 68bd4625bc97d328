//! What the shell keeps for the life of the window: the core handles every command uses.
//!
//! Owns: the resolved home, the launch environment read once at the edge ($VISUAL, $EDITOR,
//! ENGRAM_MODELS_DIR, CLAUDE_CONFIG_DIR, CODEX_HOME), the warm corpus cache, the embedding scorer (loaded once, off the main
//! thread), the memory watcher, and building a `Store` for a location the UI names.
//! Deliberately does not: decide anything about memories; core does.

use std::path::PathBuf;
use std::time::Instant;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

use engram_core::config::{Config, Strategy};
use engram_core::embed::{EmbedError, ModelPaths, ModelScorer};
use engram_core::memory::{MemoryChange, MemoryWatcher, Store};
use engram_core::sessions::{SessionWatcher, SourceRoots};
use engram_core::project::{self, KnownProject};
use engram_core::rank::{CorpusCache, Semantic};
use engram_core::EngramHome;

use crate::ipc_error::IpcResult;

/// Process environment the shell reads once and passes into core.
pub struct LaunchEnv {
    pub visual: Option<String>,
    pub editor: Option<String>,
    pub models_dir: Option<PathBuf>,
    pub user_home: Option<PathBuf>,
    pub claude_config_dir: Option<PathBuf>,
    pub codex_home: Option<PathBuf>,
    /// How long the embedding model may sit unused before it is released
    /// (ENGRAM_MODEL_IDLE_SECS, default 10 minutes).
    pub model_idle: std::time::Duration,
}

impl LaunchEnv {
    pub fn from_process() -> LaunchEnv {
        let non_empty = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        LaunchEnv {
            visual: non_empty("VISUAL"),
            editor: non_empty("EDITOR"),
            models_dir: non_empty("ENGRAM_MODELS_DIR").map(PathBuf::from),
            user_home: std::env::home_dir(),
            claude_config_dir: non_empty("CLAUDE_CONFIG_DIR").map(PathBuf::from),
            codex_home: non_empty("CODEX_HOME").map(PathBuf::from),
            model_idle: std::time::Duration::from_secs(
                non_empty("ENGRAM_MODEL_IDLE_SECS").and_then(|s| s.trim().parse().ok()).unwrap_or(600).max(1),
            ),
        }
    }
}

pub struct AppState {
    /// When the process started (for the first-paint measurement).
    pub started: Instant,
    /// Set once the window has shown its first view; background work waits for it.
    first_paint: (Mutex<bool>, Condvar),
    pub home: EngramHome,
    pub env: LaunchEnv,
    pub cache: Mutex<CorpusCache>,
    scorer: OnceLock<Result<ModelScorer, EmbedError>>,
    pub reindexing: AtomicBool,
    pub watcher: Mutex<Option<MemoryWatcher>>,
    /// Set once the memory watcher runs: from then on the search caches skip their per-search
    /// stat of every file and rely on `memory_changed` instead.
    watching: AtomicBool,
    /// The known projects, kept while the watcher runs (it reports every change to them), so a
    /// search over all memories does not read the projects directory on each keystroke.
    known: Mutex<Option<Vec<KnownProject>>>,
    pub session_watcher: Mutex<Option<SessionWatcher>>,
}

impl AppState {
    pub fn new(home: EngramHome, env: LaunchEnv) -> AppState {
        let cache = CorpusCache::persistent(&home.index_db());
        AppState {
            started: Instant::now(),
            first_paint: (Mutex::new(false), Condvar::new()),
            home,
            env,
            cache: Mutex::new(cache),
            scorer: OnceLock::new(),
            reindexing: AtomicBool::new(false),
            watcher: Mutex::new(None),
            watching: AtomicBool::new(false),
            known: Mutex::new(None),
            session_watcher: Mutex::new(None),
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

    /// The configuration as it is on disk now (edits apply without a restart).
    pub fn config(&self) -> IpcResult<Config> {
        Ok(Config::load(&self.home.config_file())?)
    }

    /// Where the embedding assets are, exactly as the CLI resolves them.
    pub fn model_paths(&self, config: &Config) -> ModelPaths {
        let dir = self.env.models_dir.clone().unwrap_or_else(|| self.home.models_dir());
        ModelPaths::new(dir, config.retrieval.embedding_model.clone())
    }

    /// Where transcripts live, as the CLI resolves them.
    pub fn session_roots(&self) -> SourceRoots {
        SourceRoots::resolve(&self.home, self.env.user_home.clone(), self.env.claude_config_dir.clone(), self.env.codex_home.clone())
    }

    /// Every known project: from the watcher-kept copy when there is one, else from disk.
    pub fn known_projects(&self) -> IpcResult<Vec<KnownProject>> {
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(list) = known.as_ref() {
            return Ok(list.clone());
        }
        let list = project::known_projects(&self.home)?;
        if self.watching.load(Ordering::SeqCst) {
            *known = Some(list.clone());
        }
        Ok(list)
    }

    /// A project was added or changed: read them from disk next time.
    pub fn projects_written(&self) {
        *self.known.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The known project with this slug (refuses anything that is not one).
    pub fn project(&self, slug: &str) -> IpcResult<KnownProject> {
        Ok(project::find_known(&self.home, slug)?)
    }

    /// The store for the user scope plus, when named, one known project.
    pub fn store(&self, project: Option<&str>) -> IpcResult<Store> {
        let project = match project {
            Some(slug) => Some(self.project(slug)?.to_project()),
            None => None,
        };
        Ok(Store::new(self.home.clone(), project))
    }

    /// The model scorer, loading it on first use (about 0.4 s); call off the main thread.
    pub fn scorer(&self, config: &Config) -> &Result<ModelScorer, EmbedError> {
        self.scorer.get_or_init(|| {
            let scorer = ModelScorer::load(&self.model_paths(config))?;
            Ok(if self.watching.load(Ordering::SeqCst) { scorer.trust_watcher() } else { scorer })
        })
    }

    /// The memory watcher is running: searches may trust it to report every change.
    pub fn watcher_started(&self) {
        self.watching.store(true, Ordering::SeqCst);
        self.lock_cache().trust_watcher();
    }

    /// Lets the search caches know what the watcher saw, before the window hears of it (so a
    /// search the window runs in response already sees the change).
    pub fn memory_changed(&self, change: &MemoryChange) {
        let dir_of = |project: &Option<String>| match project {
            Some(slug) => self.home.project_memory_dir(slug),
            None => self.home.user_memory_dir(),
        };
        let scorer = self.scorer.get().and_then(|s| s.as_ref().ok());
        match change {
            MemoryChange::Saved { project, name, .. } | MemoryChange::Removed { project, name, .. } => {
                let dir = dir_of(project);
                self.lock_cache().invalidate(&dir);
                if let Some(scorer) = scorer {
                    scorer.invalidate(&dir.join(format!("{name}.md")));
                }
            }
            MemoryChange::SidecarChanged { project, name, .. } => {
                if let Some(scorer) = scorer {
                    scorer.invalidate(&dir_of(project).join(format!("{name}.md")));
                }
            }
            MemoryChange::Rescan | MemoryChange::ProjectsChanged => {
                self.projects_written();
                self.lock_cache().invalidate_all();
                if let Some(scorer) = scorer {
                    scorer.invalidate_all();
                }
            }
            MemoryChange::UserAnchorChanged => {}
        }
    }

    /// The app itself changed memories (save, delete, restore, reindex): don't wait for the
    /// watcher's debounce to make the next search see it.
    pub fn memories_written(&self) {
        self.lock_cache().invalidate_all();
        if let Some(Ok(scorer)) = self.scorer.get() {
            scorer.invalidate_all();
        }
    }

    pub fn lock_cache(&self) -> std::sync::MutexGuard<'_, CorpusCache> {
        // A panic mid-search leaves a cache that is at worst stale, and every entry is checked
        // against the disk again after `invalidate_all`.
        self.cache.lock().unwrap_or_else(|poisoned| {
            let mut cache = poisoned.into_inner();
            cache.invalidate_all();
            cache
        })
    }

    /// What the ranker gets for semantic scoring under the configured strategy.
    pub fn semantic(&self, config: &Config) -> Semantic<'_> {
        match config.retrieval.strategy {
            Strategy::Keyword | Strategy::Bm25 => Semantic::Unavailable("not requested".into()),
            Strategy::Semantic | Strategy::Auto => engram_core::embed::semantic_arg(self.scorer(config)),
        }
    }
}

/// Runs blocking core work on the blocking pool so the window never waits on the disk.
pub async fn off_main<T, F>(app: tauri::AppHandle, work: F) -> IpcResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppState) -> IpcResult<T> + Send + 'static,
{
    use tauri::Manager;
    tauri::async_runtime::spawn_blocking(move || work(app.state::<AppState>().inner()))
        .await
        .map_err(|e| crate::ipc_error::IpcError::new("internal", format!("the task stopped unexpectedly: {e}")))?
}
