//! Keeping a home in shape through the workspace: reindex of everything (every scope's vectors,
//! then the session index), the doctor report, trust anchors and the editor to open a file in.
//!
//! Owns: what "everything" means for a reindex (the user scope, every known project, and the
//! caller's own project when it is not registered yet), the single-run guard, and which checks
//! a doctor report holds with and without a working directory.
//! Deliberately does not: embed, index or check anything itself (the modules do), or run on a
//! thread of its own (the caller decides).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use serde::Serialize;

use super::place::Place;
use super::{Workspace, WorkspaceError};
use crate::editor::{resolve_editor, EditorLaunch};
use ambry_rank::embed::{
    reindex_files, shared_embedder, ModelPerBatch, ReindexProgress, ReindexReport,
};
use ambry_sessions::sessions::{IndexProgress, IndexSummary, VectorFill};
use ambry_store::anchors::{self, AnchorKind};
use ambry_store::doctor::{self, Check};
use ambry_store::error::ErrorReport;
use ambry_store::memory::{ScopeFilter, Store};
use ambry_store::project::Project;

/// Which part of a reindex a progress report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReindexPhase {
    Embeddings,
    Sessions,
    /// Vectors for the session messages that have none (with the model only).
    #[serde(rename = "session_vectors")]
    SessionVectors,
    /// Another session indexer (`ambry sessions index`, the watcher) is at work: the sessions
    /// phase starts when it ends.
    #[serde(rename = "waiting_for_indexer")]
    WaitingForIndexer,
}

/// The parts of a reindex; one failing does not stop the others.
#[derive(Debug, Clone, Serialize)]
pub struct ReindexSummary {
    pub embeddings: Result<ReindexReport, ErrorReport>,
    pub sessions: Result<IndexSummary, ErrorReport>,
    /// Session messages embedded, or why none were (no model: recall works by words).
    pub session_vectors: Result<VectorFill, ErrorReport>,
}

/// Releases the single-run guard however the reindex ends (a panic included).
struct RunningReindex<'a>(&'a Workspace);

impl Drop for RunningReindex<'_> {
    fn drop(&mut self) {
        self.0.reindexing.store(false, Ordering::SeqCst);
        // New sidecars were written: searches must not keep "no vector" for them.
        self.0.memories_written();
    }
}

impl Workspace {
    pub fn reindex_running(&self) -> bool {
        self.reindexing.load(Ordering::SeqCst)
    }

    /// Vectors of every memory Ambry knows (user scope and every known project, plus `also`
    /// when it is not known yet), then the session index (transcripts found gone are vaulted as
    /// of `now`). Refused while another reindex runs.
    pub fn reindex(
        &self,
        also: Option<&Project>,
        now: chrono::DateTime<chrono::Utc>,
        progress: &mut dyn FnMut(ReindexPhase, usize, usize),
    ) -> Result<ReindexSummary, WorkspaceError> {
        let _running = self.begin_reindex()?;
        let embeddings = self.reindex_vectors(also, &mut |p| {
            progress(ReindexPhase::Embeddings, p.done, p.total)
        });
        if self.session_indexer_at_work() {
            progress(ReindexPhase::WaitingForIndexer, 0, 0);
        }
        let sessions = self.index_sessions(
            &super::IndexRequest::default(),
            now,
            &mut |p: IndexProgress| {
                progress(ReindexPhase::Sessions, p.done as usize, p.total as usize)
            },
        );
        let pending = self
            .session_index()
            .ok()
            .and_then(|i| i.unembedded_count().ok())
            .unwrap_or(0) as usize;
        let session_vectors = self.embed_sessions(None, &mut |f| {
            progress(ReindexPhase::SessionVectors, f.messages as usize, pending)
        });
        Ok(ReindexSummary {
            embeddings: embeddings.map_err(|e| ErrorReport::of(&e)),
            sessions: sessions.map_err(|e| ErrorReport::of(&e)),
            session_vectors: session_vectors.map_err(|e| ErrorReport::of(&e)),
        })
    }

    /// Only the vectors (`ambry memory reindex`): the same coverage as [`Workspace::reindex`].
    pub fn reindex_embeddings(
        &self,
        also: Option<&Project>,
        progress: &mut dyn FnMut(ReindexProgress),
    ) -> Result<ReindexReport, WorkspaceError> {
        let _running = self.begin_reindex()?;
        self.reindex_vectors(also, progress)
    }

    fn begin_reindex(&self) -> Result<RunningReindex<'_>, WorkspaceError> {
        if self.reindexing.swap(true, Ordering::SeqCst) {
            return Err(WorkspaceError::ReindexRunning);
        }
        Ok(RunningReindex(self))
    }

    fn reindex_vectors(
        &self,
        also: Option<&Project>,
        progress: &mut dyn FnMut(ReindexProgress),
    ) -> Result<ReindexReport, WorkspaceError> {
        let config = self.config()?;
        progress(ReindexProgress { done: 0, total: 0 });
        // Lent per batch: searches and composes of this process use the model between batches.
        let mut embedder = ModelPerBatch::new(shared_embedder(&self.model_paths(&config))?)
            .map_err(|_| WorkspaceError::ModelCrashed)?;
        let mut files = Store::new(self.home.clone(), None).list(ScopeFilter::User)?;
        let known = self.known_projects()?;
        let mut projects: Vec<Project> = known.iter().map(|k| k.to_project()).collect();
        if let Some(extra) = also.filter(|p| !known.iter().any(|k| k.slug == p.slug)) {
            projects.push(extra.clone());
        }
        for project in projects {
            files.extend(Store::new(self.home.clone(), Some(project)).list(ScopeFilter::Project)?);
        }
        Ok(reindex_files(files, &mut embedder, progress)?)
    }

    /// Every check `ambry doctor` and the app's Settings show. With `cwd`, the store checks
    /// cover that directory's project; without one (the app), each project is covered by the
    /// projects check instead.
    pub fn doctor(&self, cwd: Option<&Path>) -> Vec<Check> {
        let config = self.config();
        let mut checks = doctor::home_checks(&self.home, &config);
        match cwd {
            Some(cwd) => checks.extend(doctor::store_checks(&self.store_at(cwd))),
            None => checks.extend(doctor::user_store_checks(&Store::new(
                self.home.clone(),
                None,
            ))),
        }
        checks.extend(doctor::project_checks(&self.home));
        let rule_place = match cwd {
            Some(cwd) => self.place_at(cwd),
            None => Place::new(Store::new(self.home.clone(), None)),
        };
        checks.extend(self.rule_checks(&rule_place));
        if let Ok(config) = &config {
            checks.extend(
                ambry_rank::embed::embed_checks(
                    &self.model_paths(config),
                    config.retrieval.strategy,
                )
                .to_checks(),
            );
            checks.push(ambry_sync::sync::doctor_check(
                &self.home,
                config.sync.remote(),
            ));
        }
        checks.extend(ambry_sessions::sessions::session_checks(
            &self.home.index_db(),
        ));
        checks.extend(ambry_compose::ledger::ledger_checks(&self.home));
        if let Ok(env) = self.agent_env() {
            checks.extend(ambry_compose::agents::agent_checks(&env));
        }
        checks
    }

    /// Where a trust anchor lives: USER.md, or a known project's `.ambry/AMBRY.md`.
    pub fn anchor_path(&self, slug: Option<&str>) -> Result<(AnchorKind, PathBuf), WorkspaceError> {
        match slug {
            None => Ok((AnchorKind::User, anchors::user_anchor_path(&self.home))),
            Some(slug) => {
                let known = self.project(slug)?;
                if known.roots.is_empty() {
                    return Err(WorkspaceError::NoProjectRoot {
                        project: known.display_name(),
                    });
                }
                Ok((
                    AnchorKind::Project,
                    anchors::project_anchor_path(&known.to_project()),
                ))
            }
        }
    }

    /// What opens `path` for editing: `editor.command`, else `$VISUAL`, `$EDITOR`, else the
    /// system default. A config that does not parse still lets a file open (to be fixed, when
    /// it is config.toml itself): its editor key is then taken as unset.
    pub fn editor_for(&self, path: &Path) -> Result<EditorLaunch, WorkspaceError> {
        let configured = self.config().map(|c| c.editor.command).unwrap_or_default();
        Ok(resolve_editor(
            &configured,
            self.env.visual.as_deref(),
            self.env.editor.as_deref(),
            path,
        )?)
    }
}
