//! Past sessions through the workspace: indexing the transcripts, recall, the session list,
//! one transcript, and the index's numbers.
//!
//! Owns: the source roots (from the launch environment), the rule that a source switched off
//! in config is not indexed on request, and recall's "index first, but a busy indexer only
//! means slightly older results".
//! Deliberately does not: parse transcripts or rank (the sessions module does).

use std::path::PathBuf;

use super::{Workspace, WorkspaceError};
use crate::sessions::{
    IndexProgress, IndexStats, IndexSummary, RecallHit, RecallQuery, SessionError, SessionIndex,
    SessionMeta, SourceKind, Transcript,
};

/// A transcript folder the session index reads.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SessionFolder {
    pub source: SourceKind,
    pub path: Option<String>,
    pub exists: bool,
}

/// What to index: every source switched on (default), or one; `rebuild` reads every transcript
/// again from the start (sessions whose transcript is gone are kept).
#[derive(Debug, Clone, Default)]
pub struct IndexRequest {
    pub only: Option<SourceKind>,
    pub rebuild: bool,
}

impl Workspace {
    fn session_index(&self) -> Result<SessionIndex, WorkspaceError> {
        Ok(SessionIndex::open(&self.home.index_db())?)
    }

    /// Brings the session index up to date (incremental: only new bytes are read); a transcript
    /// found missing is kept in the vault as gone since `now`.
    pub fn index_sessions(
        &self,
        request: &IndexRequest,
        now: chrono::DateTime<chrono::Utc>,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<IndexSummary, WorkspaceError> {
        let config = self.config()?.sessions;
        if let Some(kind) = request.only.filter(|k| !config.sources.contains(k)) {
            return Err(SessionError::SourceDisabled {
                source_name: kind.to_string(),
            }
            .into());
        }
        let db = self.home.index_db();
        // A rebuild reads every transcript again but keeps the sessions whose file is gone:
        // the index is the only place they still exist.
        let (mut index, vault_kept) = if request.rebuild {
            SessionIndex::rebuild_keeping_vault(&db, request.only)?
        } else {
            (SessionIndex::open(&db)?, 0)
        };
        let mut summary = index.index(&self.session_roots(), &config, request.only, now.timestamp(), progress)?;
        summary.vault_kept = vault_kept;
        Ok(summary)
    }

    /// Recall over past sessions. With `index_first` the index is brought up to date before
    /// searching; another indexer at work only means the results may miss its newest lines,
    /// which `notes` says. `now` dates transcripts that indexing finds gone.
    pub fn recall(
        &self,
        query: &RecallQuery,
        index_first: bool,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(Vec<RecallHit>, Vec<String>), WorkspaceError> {
        let mut notes = Vec::new();
        if index_first {
            match self.index_sessions(&IndexRequest::default(), now, &mut |_| {}) {
                Ok(summary) => notes.extend(summary.problems.iter().map(|p| p.describe())),
                Err(WorkspaceError::Sessions(e @ SessionError::Busy { .. })) => {
                    notes.push(format!("searching without indexing first: {e}"))
                }
                Err(e) => return Err(e),
            }
        }
        Ok((self.session_index()?.recall(query)?, notes))
    }

    /// The sessions of a known project only: `RecallQuery::cwd_prefix` for its first root.
    pub fn project_root(&self, slug: &str) -> Result<Option<PathBuf>, WorkspaceError> {
        Ok(self.project(slug)?.roots.first().cloned())
    }

    pub fn sessions(
        &self,
        source: Option<SourceKind>,
        limit: usize,
    ) -> Result<Vec<SessionMeta>, WorkspaceError> {
        Ok(self.session_index()?.sessions(source, limit)?)
    }

    pub fn transcript(&self, session_id: &str) -> Result<Transcript, WorkspaceError> {
        Ok(self.session_index()?.transcript(session_id)?)
    }

    /// The folders each source switched on in config is read from (all of them when the
    /// config does not load).
    pub fn session_folders(&self) -> Vec<SessionFolder> {
        let enabled = self.config().map(|c| c.sessions.sources).ok();
        let roots = self.session_roots();
        SourceKind::ALL
            .into_iter()
            .filter(|s| enabled.as_ref().is_none_or(|on| on.contains(s)))
            .map(|source| {
                let path = roots.root(source);
                SessionFolder {
                    source,
                    exists: path.is_some_and(|p| p.is_dir()),
                    path: path.map(|p| p.display().to_string()),
                }
            })
            .collect()
    }

    /// Removes sessions the vault kept after their transcript was deleted (`older_than_days`
    /// since the deletion was noticed, when given) as of `now`; `dry_run` only lists them.
    pub fn prune_vaulted_sessions(
        &self,
        older_than_days: Option<u32>,
        now: chrono::DateTime<chrono::Utc>,
        dry_run: bool,
    ) -> Result<crate::sessions::VaultPruneReport, WorkspaceError> {
        Ok(self
            .session_index()?
            .prune_source_removed(older_than_days, now.timestamp(), dry_run)?)
    }

    pub fn session_stats(&self) -> Result<IndexStats, WorkspaceError> {
        Ok(self.session_index()?.stats()?)
    }
}
