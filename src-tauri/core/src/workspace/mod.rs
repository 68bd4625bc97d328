//! The one core façade every front end acts through (DESIGN §1): the app's commands, the CLI,
//! the compose service and the MCP server call a `Workspace`, so no two of them can disagree,
//! and a long-lived process holds one corpus, one vector cache and one model.
//!
//! Owns: the home, the launch environment, the configuration (re-read when the file changes),
//! the embedding model slot (a failed load is retried, an idle model is released elsewhere),
//! the corpus and vector caches and what invalidates them, the known-projects list, and every
//! operation a front end needs (in the submodules: memories, retrieval, upkeep, sessions,
//! agents and their instruction files).
//! Deliberately does not: know about Tauri, clap, MCP or a terminal; read the clock (callers
//! pass `now`); print or exit.

mod agents;
mod anchors;
mod annotate;
mod bulk;
mod context;
mod distill;
mod enforce;
mod errors;
mod held_sessions;
mod instructions;
mod launch;
mod memories;
mod needs_when;
mod place;
mod recall_bound;
mod retrieval;
mod review;
mod review_ask;
mod session_actions;
mod sessions;
mod sync;
mod sync_auto;
mod team;
mod upkeep;
mod usage;
mod watch;
mod when;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ambry_rank::embed::ModelPaths;
use ambry_rank::rank::CorpusCache;
use ambry_sessions::sessions::SourceRoots;
use ambry_store::config::{Config, ConfigError};
use ambry_store::home::AmbryHome;
use ambry_store::memory::{MemoryChange, Store};
use ambry_store::project::{self, KnownProject, Project};
use ambry_store::project_lookup::ProjectLookup;

pub use agents::AgentStatus;
pub use ambry_compose::enforce::ToolCheck;
pub use anchors::{AnchorOf, AnchorText};
pub use bulk::ForgottenVersion;
pub use distill::Selection;
pub use enforce::RuleRow;
pub use errors::{ModelUnavailable, WorkspaceError};
pub use instructions::InstructionView;
pub use launch::{HomeError, LaunchEnv};
pub use memories::{MemoryRow, RenamedWithVector, VersionRow};
pub use place::Place;
pub use retrieval::{Coverage, JudgedHit, SearchHit, SearchOptions};
pub use session_actions::ReaderRecall;
pub use sessions::{IndexRequest, SessionFolder};
pub use sync_auto::AutoSync;
pub use team::TeamTrust;
pub use upkeep::{ReindexPhase, ReindexSummary};
pub use usage::Reader;

/// Identity of the config file as last read: `None` when it does not exist.
type ConfigStamp = Option<(u64, i64, i64, u64)>;

pub struct Workspace {
    home: AmbryHome,
    env: LaunchEnv,
    config: Mutex<Option<(ConfigStamp, Config)>>,
    cache: Mutex<CorpusCache>,
    model: retrieval::ModelSlot,
    /// Set once a watcher reports every change: caches then skip their per-call stat of every file.
    trusting: AtomicBool,
    /// The known projects, kept while a watcher runs (it reports every change to them).
    known: Mutex<Option<Vec<KnownProject>>>,
    reindexing: AtomicBool,
    composed: std::sync::atomic::AtomicU64,
    /// How many recalls this workspace answered (a service's idle clock counts them too).
    recalled: std::sync::atomic::AtomicU64,
    /// Which project each working directory belongs to, so a turn does not start git each time.
    projects: ProjectLookup,
    /// What the review embedded, kept by text (see `review.rs`).
    review_vectors: Mutex<review::ReviewVectors>,
    /// Whether this process loads the model only while no other hook of the home does.
    model_loader: Mutex<retrieval::LoaderRule>,
    /// Memories' rules, compiled once (DESIGN §16).
    rules: Mutex<ambry_compose::enforce::RuleBook>,
    /// The transcripts the review read for "ignored" findings (see `enforce.rs`).
    review_transcripts: Mutex<held_sessions::ReviewTranscripts>,
    /// The sides of pairs compose judged for known conflicts, kept by text across turns.
    judged_sides: Mutex<ambry_lifecycle::lifecycle::sides::SideCache>,
}

impl Workspace {
    /// A workspace on `home`; nothing is read until the first call. The corpus cache is also
    /// saved to `index.sqlite`, so a later process starts warm.
    pub fn new(home: AmbryHome, env: LaunchEnv) -> Workspace {
        let cache = CorpusCache::persistent(&home.index_db());
        Workspace {
            home,
            env,
            config: Mutex::new(None),
            cache: Mutex::new(cache),
            model: retrieval::ModelSlot::default(),
            trusting: AtomicBool::new(false),
            known: Mutex::new(None),
            reindexing: AtomicBool::new(false),
            composed: Default::default(),
            recalled: Default::default(),
            projects: ProjectLookup::default(),
            review_vectors: Mutex::default(),
            model_loader: Mutex::default(),
            rules: Mutex::default(),
            review_transcripts: Mutex::default(),
            judged_sides: Mutex::default(),
        }
    }

    /// A shared workspace on `home` with the embedding assets in `models_dir` and nothing else
    /// from the environment (tests, benchmarks, examples).
    pub fn with_models(home: AmbryHome, models_dir: impl Into<PathBuf>) -> Arc<Workspace> {
        Arc::new(Workspace::new(home, LaunchEnv::with_models_dir(models_dir)))
    }

    /// The usual start: the process environment, `--home` when given.
    pub fn open(home_flag: Option<PathBuf>, env: LaunchEnv) -> Result<Arc<Workspace>, HomeError> {
        let home = env.resolve_home(home_flag)?;
        Ok(Arc::new(Workspace::new(home, env)))
    }

    pub fn home(&self) -> &AmbryHome {
        &self.home
    }

    pub fn env(&self) -> &LaunchEnv {
        &self.env
    }

    /// The configuration as it is on disk now: re-read when the file's size, mtime or inode
    /// changes; an invalid file is an error every call until it is fixed (never a silent default).
    pub fn config(&self) -> Result<Config, ConfigError> {
        let path = self.home.config_file();
        let stamp: ConfigStamp = std::fs::metadata(&path)
            .ok()
            .map(|m| (m.len(), m.mtime(), m.mtime_nsec(), m.ino()));
        let mut slot = lock(&self.config);
        if let Some((seen, config)) = slot.as_ref() {
            if *seen == stamp {
                return Ok(config.clone());
            }
        }
        *slot = None;
        let config = Config::load(&path)?;
        *slot = Some((stamp, config.clone()));
        Ok(config)
    }

    /// The configuration for saving memories and indexing and recalling sessions: a bad value in
    /// `[retrieval]` gives that table's defaults (see [`Config::load_lenient`]), which
    /// [`Workspace::config_warning`] then tells; `doctor` and the settings still report it.
    pub fn config_or_retrieval_defaults(&self) -> Result<Config, ConfigError> {
        match self.config() {
            Err(e) if e.is_in_retrieval() => {
                Config::load_lenient(&self.home.config_file()).map(|(config, _)| config)
            }
            other => other,
        }
    }

    /// What a front end should warn about after using
    /// [`Workspace::config_or_retrieval_defaults`]: the `[retrieval]` error whose defaults it used.
    pub fn config_warning(&self) -> Option<String> {
        match self.config() {
            Err(e) if e.is_in_retrieval() => {
                Some(format!("{e}; the default [retrieval] settings were used"))
            }
            _ => None,
        }
    }

    /// The directory holding ONNX Runtime and the models.
    pub fn models_dir(&self) -> PathBuf {
        self.env
            .models_dir
            .clone()
            .unwrap_or_else(|| self.home.models_dir())
    }

    /// Where the configured embedding model's assets are.
    pub fn model_paths(&self, config: &Config) -> ModelPaths {
        ModelPaths::new(self.models_dir(), config.retrieval.embedding_model.clone())
    }

    /// Where each source keeps its transcripts.
    pub fn session_roots(&self) -> SourceRoots {
        SourceRoots::resolve(
            &self.home,
            self.env.user_home.clone(),
            self.env.claude_config_dir.clone(),
            self.env.codex_home.clone(),
        )
    }

    /// The user scope and the project `cwd` belongs to (user scope only when `cwd` resolves to
    /// no project).
    pub fn place_at(&self, cwd: &Path) -> Place {
        Place::new(self.store_at(cwd))
    }

    /// The store of [`Workspace::place_at`], for the workspace's own operations.
    pub(crate) fn store_at(&self, cwd: &Path) -> Store {
        Store::new(self.home.clone(), self.projects.project_at(cwd).ok())
    }

    /// The project `cwd` belongs to.
    pub fn project_at(&self, cwd: &Path) -> Result<Project, WorkspaceError> {
        Ok(self.projects.project_at(cwd)?)
    }

    /// The user scope plus, when named, one known project (refuses any slug that is not a
    /// known project).
    pub fn place_of(&self, slug: Option<&str>) -> Result<Place, WorkspaceError> {
        Ok(Place::new(self.store_of(slug)?))
    }

    /// The store of [`Workspace::place_of`], for the workspace's own operations.
    pub(crate) fn store_of(&self, slug: Option<&str>) -> Result<Store, WorkspaceError> {
        let project = match slug {
            Some(slug) => Some(self.project(slug)?.to_project()),
            None => None,
        };
        Ok(Store::new(self.home.clone(), project))
    }

    /// Every known project: from the watcher-kept copy when there is one, else from disk.
    pub fn known_projects(&self) -> Result<Vec<KnownProject>, WorkspaceError> {
        let mut known = lock(&self.known);
        if let Some(list) = known.as_ref() {
            return Ok(list.clone());
        }
        let list = project::known_projects(&self.home)?;
        if self.trusting.load(Ordering::SeqCst) {
            *known = Some(list.clone());
        }
        Ok(list)
    }

    /// The known project with this slug.
    pub fn project(&self, slug: &str) -> Result<KnownProject, WorkspaceError> {
        Ok(project::find_known(&self.home, slug)?)
    }

    /// Records `folder`'s repository as a known project (the app's "add a project").
    pub fn add_project(&self, folder: &Path) -> Result<KnownProject, WorkspaceError> {
        let resolved = project::resolve(folder)?;
        project::register(&self.home, &resolved)?;
        self.projects_written();
        self.project(&resolved.slug)
    }

    /// A watcher now reports every change under the home: caches may trust it instead of
    /// checking every file on every call.
    pub fn trust_watcher(&self) {
        self.trusting.store(true, Ordering::SeqCst);
        self.corpus_cache().trust_watcher();
        self.model.trust_watcher();
    }

    /// What the watcher saw, applied to the caches before any front end hears of it (so a
    /// search run in response already sees the change).
    pub fn memory_changed(&self, change: &MemoryChange) {
        let dir_of = |project: &Option<String>| match project {
            Some(slug) => self.home.project_memory_dir(slug),
            None => self.home.user_memory_dir(),
        };
        match change {
            MemoryChange::Saved { project, name, .. }
            | MemoryChange::Removed { project, name, .. } => {
                let dir = dir_of(project);
                self.corpus_cache().invalidate(&dir);
                self.model.invalidate(&dir.join(format!("{name}.md")));
            }
            MemoryChange::SidecarChanged { project, name, .. } => {
                self.model
                    .invalidate(&dir_of(project).join(format!("{name}.md")));
            }
            MemoryChange::Rescan | MemoryChange::ProjectsChanged => {
                self.projects_written();
                self.memories_written();
            }
            MemoryChange::UserAnchorChanged | MemoryChange::ConfigChanged => {}
        }
    }

    /// Memories were written through this workspace: the next search sees them without
    /// waiting for a watcher's debounce.
    pub fn memories_written(&self) {
        self.corpus_cache().invalidate_all();
        self.model.invalidate_all();
    }

    /// A project was added or changed: read them from disk next time.
    pub fn projects_written(&self) {
        *lock(&self.known) = None;
    }

    fn corpus_cache(&self) -> MutexGuard<'_, CorpusCache> {
        // A panic mid-search leaves a cache that is at worst stale; every entry is checked
        // against the disk again after `invalidate_all`.
        self.cache.lock().unwrap_or_else(|poisoned| {
            let mut cache = poisoned.into_inner();
            cache.invalidate_all();
            cache
        })
    }
}

/// A poisoned lock holds data that is at worst stale; every slot here is re-validated on use.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
