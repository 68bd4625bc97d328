//! Ranking through the workspace: the model slot, search over a coverage, and compose — the
//! one path the app's overlay, `ambry memory search`, `ambry compose`, the compose service
//! and the MCP server all take.
//!
//! Owns: when the model is (re)loaded (once per model and models directory; a failed load is
//! tried again after a short pause, so fetching the assets needs no restart; in an agent's hook
//! composing without the service, only while no other hook of the home holds the model lock,
//! so a hundred hooks at once load one model, not a hundred), the one rule for
//! strategies that never need the model, which memories a coverage ranks and the project each
//! hit belongs to.
//! Deliberately does not: score (the ranker does) or embed (the embed module does).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::place::Place;
use super::{lock, ModelUnavailable, Workspace, WorkspaceError};
use ambry_compose::compose::cases::{
    load_cases, run_cases, with_case_added, with_case_removed, with_case_replaced, CaseSpec,
    CasesReport, CASES_FILE,
};
use ambry_compose::compose::Budgets;
use ambry_rank::embed::{EmbedError, ModelPaths, ModelScorer};
use ambry_rank::rank::{self, Evidence, Hit, SearchParams, Semantic, Shadowing, Synonyms};
use ambry_store::config::{Config, Strategy};
use ambry_store::memory::{Retirement, Scope, ScopeFilter, Store};

/// How long a failed load of assets that are present is remembered before the next call tries
/// again (such a load costs up to a second). Missing assets are looked for on every call (a
/// stat), so fetching them needs no restart and no wait.
const RETRY_FAILED_LOAD_AFTER: Duration = Duration::from_secs(20);

/// The loaded scorer (model + vector cache) for one set of model paths, or the last failure.
#[derive(Default)]
pub(super) struct ModelSlot {
    slot: Mutex<Option<Loaded>>,
    trusting: std::sync::atomic::AtomicBool,
}

enum Loaded {
    Ready(ModelPaths, Arc<ModelScorer>),
    /// A load of assets that were all present failed (a costly attempt, not retried at once).
    Failed(ModelPaths, Instant, Arc<EmbedError>),
}

impl ModelSlot {
    /// The scorer for `paths`, loading it when needed; `Err` says why there is none.
    fn scorer(&self, paths: &ModelPaths) -> Result<Arc<ModelScorer>, ModelUnavailable> {
        let mut slot = lock(&self.slot);
        match slot.as_ref() {
            Some(Loaded::Ready(loaded, scorer)) if loaded == paths => return Ok(scorer.clone()),
            Some(Loaded::Failed(loaded, at, why))
                if loaded == paths && at.elapsed() < RETRY_FAILED_LOAD_AFTER =>
            {
                return Err(ModelUnavailable::Load(why.clone()))
            }
            _ => {}
        }
        match ModelScorer::load(paths) {
            Ok(scorer) => {
                let scorer = if self.trusting.load(Ordering::SeqCst) {
                    scorer.trust_watcher()
                } else {
                    scorer
                };
                let scorer = Arc::new(scorer);
                *slot = Some(Loaded::Ready(paths.clone(), scorer.clone()));
                Ok(scorer)
            }
            Err(e) => {
                let why = Arc::new(e);
                // Missing assets cost a stat to look for again; remember only real load failures.
                *slot = match paths.check() {
                    Ok(()) => Some(Loaded::Failed(paths.clone(), Instant::now(), why.clone())),
                    Err(_) => None,
                };
                Err(ModelUnavailable::Load(why))
            }
        }
    }

    /// Whether the model was opened at all (loaded, or tried and failed).
    #[cfg(test)]
    pub(super) fn opened(&self) -> bool {
        lock(&self.slot).is_some()
    }

    /// Whether a search over `paths` would first wait for the model to load: it is not loaded
    /// (or was released while idle) and its assets are there to load it from. A recent failed
    /// load is answered at once, so it waits for nothing.
    fn load_pending(&self, paths: &ModelPaths) -> bool {
        match lock(&self.slot).as_ref() {
            Some(Loaded::Ready(loaded, scorer)) if loaded == paths => {
                // Held by another search: loaded, or loading for it.
                scorer.embedder().try_lock().is_ok_and(|e| !e.is_loaded())
            }
            Some(Loaded::Failed(loaded, at, _))
                if loaded == paths && at.elapsed() < RETRY_FAILED_LOAD_AFTER =>
            {
                false
            }
            _ => paths.check().is_ok(),
        }
    }

    fn loaded_model(&self) -> Option<String> {
        match lock(&self.slot).as_ref() {
            Some(Loaded::Ready(paths, _)) => Some(paths.model_id().to_string()),
            _ => None,
        }
    }

    pub(super) fn trust_watcher(&self) {
        self.trusting.store(true, Ordering::SeqCst);
        // A scorer loaded before the watcher started keeps checking files: drop it.
        *lock(&self.slot) = None;
    }

    pub(super) fn invalidate(&self, memory_path: &Path) {
        if let Some(Loaded::Ready(_, scorer)) = lock(&self.slot).as_ref() {
            scorer.invalidate(memory_path);
        }
    }

    pub(super) fn invalidate_all(&self) {
        if let Some(Loaded::Ready(_, scorer)) = lock(&self.slot).as_ref() {
            scorer.invalidate_all();
        }
    }
}

/// Whether this process may load the embedding model.
#[derive(Default)]
pub(super) enum LoaderRule {
    /// A long-lived process, or a person's command: the model loads when needed.
    #[default]
    Always,
    /// An agent's hook composing in its own process: only with the home's hook model lock, held
    /// (once taken) until the process ends.
    OnlyWithTheLock(Option<std::fs::File>),
}

/// Which memories a search ranks.
#[derive(Clone, Copy)]
pub enum Coverage<'a> {
    /// The user's memories and every known project's, each on its own (nothing shadowed).
    Everything,
    /// What an agent working with this store sees (a project memory shadows the user's
    /// namesake), limited to the scopes `filter` names.
    Agent(&'a Place, ScopeFilter),
}

#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    pub limit: Option<usize>,
    /// Overrides `retrieval.strategy` for this search.
    pub strategy: Option<Strategy>,
    /// Leave out hits with no evidence at all (no query word, no real similarity): a person's
    /// search view wants that; agents and scripts get the ranking as compose sees it.
    pub only_evident: bool,
    /// The day hits are marked retired on (an `expires` day that has come); without one, only
    /// superseded memories are marked.
    pub today: Option<chrono::NaiveDate>,
}

/// One ranked memory, the project it belongs to, and the evidence behind it.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub hit: Hit,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// What backs the hit (query words contained, similarity), independent of normalization.
    pub evidence: Evidence,
    /// Set when the memory is retired (superseded, or expired): found, but never injected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retired: Option<Retirement>,
}

impl SearchHit {
    /// The hit as `memory search --json` and the MCP `memory_search` give it: the §9 fields
    /// plus the relevance gate's judgement, and `retired` when it is (superseded or expired:
    /// found, never injected), in the words `memory list --json` uses.
    pub fn judged(&self) -> JudgedHit<'_> {
        JudgedHit {
            hit: &self.hit,
            relevance: self.evidence.relevance,
            gated: self.evidence.gated,
            retired: self.retired.as_ref().map(ToString::to_string),
        }
    }
}

/// A hit and the gate's judgement of it: `gated` is whether compose would give it to an agent
/// for this query, and `relevance` reads the same (strong or good when gated, weak at most when
/// not), as the app's search labels do.
#[derive(Debug, Clone, Serialize)]
pub struct JudgedHit<'a> {
    #[serde(flatten)]
    pub hit: &'a Hit,
    pub relevance: rank::Relevance,
    pub gated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retired: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    /// The strategy that actually ran.
    pub strategy: Strategy,
    /// Why it differs from the one asked for, when it does.
    pub note: Option<String>,
}

impl Workspace {
    /// The ranker's semantic argument under `strategy`: the loaded scorer, or why there is none.
    /// Lexical strategies never load the model.
    pub(super) fn semantic_scorer(
        &self,
        strategy: Strategy,
        config: &Config,
    ) -> Result<Arc<ModelScorer>, ModelUnavailable> {
        match strategy {
            Strategy::Keyword | Strategy::Bm25 => Err(ModelUnavailable::NotRequested),
            Strategy::Semantic | Strategy::Auto => {
                let paths = self.model_paths(config);
                if !self.may_load_model(&paths) {
                    return Err(ModelUnavailable::LoadingElsewhere);
                }
                self.model.scorer(&paths)
            }
        }
    }

    /// From now on this process loads the embedding model only while it holds the home's hook
    /// model lock; without it, ranking falls back to words. For an agent's hook composing in its
    /// own process (no service answered): parallel sessions or subagents starting at once each
    /// loaded ONNX Runtime (~250 MB, seconds of CPU) — 200 at once ran the machine out of memory.
    pub fn load_the_model_only_when_alone(&self) {
        let mut rule = lock(&self.model_loader);
        if matches!(*rule, LoaderRule::Always) {
            *rule = LoaderRule::OnlyWithTheLock(None);
        }
    }

    fn may_load_model(&self, paths: &ModelPaths) -> bool {
        let mut rule = lock(&self.model_loader);
        let LoaderRule::OnlyWithTheLock(held) = &mut *rule else {
            return true;
        };
        // Loaded already, or nothing to load it from: no lock needed to find that out.
        if held.is_some() || !self.model.load_pending(paths) {
            return true;
        }
        let path = self.home.hook_model_lock();
        let file = match ambry_store::storage::open_private(&path, false) {
            Ok(file) => file,
            // A home where a lock file cannot be made: loading is still better than words.
            Err(_) => return true,
        };
        match file.try_lock() {
            Ok(()) => {
                *held = Some(file);
                true
            }
            Err(std::fs::TryLockError::WouldBlock) => false,
            Err(std::fs::TryLockError::Error(_)) => true,
        }
    }

    /// Whether a search with the configured strategy would first wait for the model to load
    /// (seconds on a cold start): a reader can be answered by words meanwhile.
    pub fn model_load_pending(&self) -> bool {
        let Ok(config) = self.config() else {
            return false;
        };
        matches!(
            config.retrieval.strategy,
            Strategy::Semantic | Strategy::Auto
        ) && self.model.load_pending(&self.model_paths(&config))
    }

    pub fn search(
        &self,
        query: &str,
        coverage: Coverage<'_>,
        options: &SearchOptions,
    ) -> Result<SearchResults, WorkspaceError> {
        let config = self.config()?;
        let mut params = SearchParams::from_config(&config.retrieval);
        params.limit = options.limit;
        if let Some(strategy) = options.strategy {
            params.strategy = strategy;
        }
        let synonyms = Synonyms::new(&config.retrieval.synonyms);
        let (dirs, shadowing, slugs) = self.coverage_dirs(coverage)?;
        let scorer = self.semantic_scorer(params.strategy, &config);
        let semantic = match &scorer {
            Ok(scorer) => Semantic::Available(scorer.as_ref()),
            Err(why) => Semantic::Unavailable(why),
        };
        let relevant = {
            let corpus = self.corpus_cache().corpus_of(&dirs, shadowing)?;
            rank::rank_with_relevance(
                &corpus,
                query,
                &params,
                &synonyms,
                semantic,
                options.only_evident,
            )
        };
        let project_of = |hit: &Hit| {
            let dir = hit.path.parent()?;
            slugs
                .iter()
                .find(|(d, _)| d == dir)
                .map(|(_, slug)| slug.clone())
        };
        let hits = relevant
            .ranking
            .hits
            .into_iter()
            .zip(relevant.evidence)
            .map(|(hit, evidence)| SearchHit {
                project: project_of(&hit),
                // As the corpus read the file: the watcher (or a refresh) renews it on a change.
                retired: hit.retiring.retirement(options.today),
                hit,
                evidence,
            })
            .collect();
        Ok(SearchResults {
            hits,
            strategy: relevant.ranking.strategy,
            note: relevant.ranking.note,
        })
    }

    /// The directories a coverage ranks, whether projects shadow the user, and which project
    /// each project directory is.
    #[allow(clippy::type_complexity)]
    fn coverage_dirs(
        &self,
        coverage: Coverage<'_>,
    ) -> Result<(Vec<(Scope, PathBuf)>, Shadowing, Vec<(PathBuf, String)>), WorkspaceError> {
        let mut dirs = Vec::new();
        let mut slugs = Vec::new();
        let shadowing = match coverage {
            Coverage::Everything => {
                dirs.push((Scope::User, self.home.user_memory_dir()));
                for known in self.known_projects()? {
                    let dir = self.home.project_memory_dir(&known.slug);
                    slugs.push((dir.clone(), known.slug));
                    dirs.push((Scope::Project, dir));
                }
                Shadowing::None
            }
            Coverage::Agent(place, filter) => {
                let store = place.store();
                for scope in store.scopes(filter) {
                    let dir = store.dir(scope)?;
                    if let (true, Some(project)) = (scope.of_a_project(), store.project()) {
                        slugs.push((dir.clone(), project.slug.clone()));
                    }
                    dirs.push((scope, dir));
                }
                Shadowing::ProjectOverUser
            }
        };
        Ok((dirs, shadowing, slugs))
    }

    /// Reads and tokenizes the user's memories ahead of the first compose, without loading the
    /// model: an idle app or service should not hold a couple of hundred megabytes for a model
    /// nobody asked for yet (the first semantic call loads it, in about half a second).
    pub fn warm_up(&self) {
        let store = Store::new(self.home.clone(), None);
        if let Err(e) = self.corpus_cache().corpus(&store, ScopeFilter::User) {
            tracing::debug!("warm-up: {e}");
        }
    }

    /// The person's own retrieval cases (`memory/tests.toml` of each scope `store` covers), each
    /// composed as an agent turn; `None` when there are none.
    pub fn memory_tests(&self, place: &Place) -> Result<Option<CasesReport>, WorkspaceError> {
        let store = place.store();
        let cases = load_cases(store)?;
        if cases.is_empty() {
            return Ok(None);
        }
        let config = self.config()?;
        let scorer = self.semantic_scorer(config.retrieval.strategy, &config);
        let semantic = || match &scorer {
            Ok(scorer) => Semantic::Available(scorer.as_ref()),
            Err(why) => Semantic::Unavailable(why),
        };
        Ok(Some(run_cases(
            store,
            &mut self.corpus_cache(),
            &config.retrieval,
            Budgets::from_config(&config.compose),
            &semantic,
            &cases,
        )))
    }

    /// [`Workspace::memory_tests`] for the user scope and, with `slug`, that project.
    pub fn memory_tests_for(
        &self,
        slug: Option<&str>,
    ) -> Result<Option<CasesReport>, WorkspaceError> {
        self.memory_tests(&self.place_of(slug)?)
    }

    /// Keeps `spec` as one of the person's retrieval cases: in the project's `tests.toml` when
    /// any memory it expects is the project's (the case only makes sense there), else in the
    /// user scope's. Every expected memory must exist now (a typo would make a case that can
    /// never pass). Returns the file written.
    pub fn add_memory_test(
        &self,
        slug: Option<&str>,
        spec: CaseSpec,
    ) -> Result<PathBuf, WorkspaceError> {
        let store = self.store_of(slug)?;
        let (scope, spec) = case_home(&store, spec)?;
        store.edit_side_file(
            scope,
            CASES_FILE,
            |text: Option<&str>, path: &Path| -> Result<String, WorkspaceError> {
                Ok(with_case_added(text.unwrap_or(""), &spec, path)?)
            },
        )
    }

    /// Changes the case at `index` of `scope`'s `tests.toml` (its prompt must still be `prompt`,
    /// so a file changed meanwhile changes nothing) to `spec`: in place when it still belongs
    /// there, else moved to the scope [`Workspace::add_memory_test`] would pick. Every memory it
    /// names must exist. Returns the file that holds it now.
    pub fn edit_memory_test(
        &self,
        slug: Option<&str>,
        scope: Scope,
        index: usize,
        prompt: &str,
        spec: CaseSpec,
    ) -> Result<PathBuf, WorkspaceError> {
        let store = self.store_of(slug)?;
        let (home, spec) = case_home(&store, spec)?;
        if home == scope {
            return store.edit_side_file(scope, CASES_FILE, |text: Option<&str>, path: &Path| {
                Ok::<_, WorkspaceError>(with_case_replaced(
                    text.unwrap_or(""),
                    index,
                    prompt,
                    &spec,
                    path,
                )?)
            });
        }
        self.remove_memory_test(slug, scope, index, prompt)?;
        store.edit_side_file(home, CASES_FILE, |text: Option<&str>, path: &Path| {
            Ok::<_, WorkspaceError>(with_case_added(text.unwrap_or(""), &spec, path)?)
        })
    }

    /// Removes the case at `index` of `scope`'s `tests.toml` (its prompt must still be `prompt`).
    pub fn remove_memory_test(
        &self,
        slug: Option<&str>,
        scope: Scope,
        index: usize,
        prompt: &str,
    ) -> Result<PathBuf, WorkspaceError> {
        self.store_of(slug)?
            .edit_side_file(scope, CASES_FILE, |text: Option<&str>, path: &Path| {
                Ok::<_, WorkspaceError>(with_case_removed(text.unwrap_or(""), index, prompt, path)?)
            })
    }

    /// How many blocks this workspace composed, and the model it holds (for `serve --status`).
    pub fn compose_stats(&self) -> (u64, Option<String>) {
        (
            self.composed.load(Ordering::SeqCst),
            self.model.loaded_model(),
        )
    }

    /// How many calls this workspace answered (blocks composed and recalls): a service that
    /// sees this number stand still is idle.
    pub fn calls_answered(&self) -> u64 {
        self.composed.load(Ordering::SeqCst) + self.recalled.load(Ordering::SeqCst)
    }
}

/// Where a case belongs and the case as kept: in the project's `tests.toml` when any memory it
/// names (expected or rejected) is the project's (it only makes sense there), else in the user
/// scope's. Every named memory must exist now (a typo would make a case that can never pass,
/// or one that always does).
fn case_home(store: &Store, mut spec: CaseSpec) -> Result<(Scope, CaseSpec), WorkspaceError> {
    spec.expect.dedup();
    spec.reject.dedup();
    let mut scope = Scope::User;
    for name in spec.expect.iter().chain(&spec.reject) {
        if store.get(None, name)?.scope == Scope::Project {
            scope = Scope::Project;
        }
    }
    Ok((scope, spec))
}
