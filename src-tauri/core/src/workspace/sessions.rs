//! Past sessions through the workspace: indexing the transcripts, recall, the session list,
//! one transcript, and the index's numbers.
//!
//! Owns: the source roots (from the launch environment), the rule that a source switched off
//! in config is not indexed on request, recall's "index first, but a busy indexer only means
//! slightly older results", and handing recall the model when the strategy allows it, it
//! loads, and the question needs it (see `sessions::words_first`; the newest messages without
//! vectors are embedded first; without the model recall is lexical, unchanged).
//! Deliberately does not: parse transcripts or rank (the sessions module does).

use std::path::PathBuf;

use super::{ModelUnavailable, Workspace, WorkspaceError};
use ambry_rank::embed::{Embedder, ModelPerBatch, TextEmbedder};
use ambry_sessions::sessions::{
    FillError, IndexProgress, IndexStats, IndexSummary, QueryVector, RecallHit, RecallQuery,
    SessionError, SessionIndex, SessionMeta, SourceKind, Transcript, VectorFill, WriterTurn,
};

/// Messages a recall embeds before searching, at most: about a second on 2 cores (the set in
/// `tests/session_eval` embedded at ≈ 20 messages/s), so a search as one types stays usable
/// after a large index run; `ambry sessions index` and the app's reindex embed the rest.
const RECALL_FILL_LIMIT: usize = 16;

fn describe_fill_error(e: &FillError) -> String {
    match e {
        FillError::Index(e) => e.to_string(),
        FillError::Model(e) => e.to_string(),
    }
}

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
    pub(super) fn session_index(&self) -> Result<SessionIndex, WorkspaceError> {
        Ok(SessionIndex::open(&self.home.index_db())?)
    }

    /// Brings the session index up to date (incremental: only new bytes are read); a transcript
    /// found missing is kept in the vault as gone since `now`. Another indexer at work (the app's
    /// watcher, a second `ambry sessions index`) is waited for, however long its run takes.
    pub fn index_sessions(
        &self,
        request: &IndexRequest,
        now: chrono::DateTime<chrono::Utc>,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<IndexSummary, WorkspaceError> {
        // One turn from the rebuild's clearing to the end of the run that refills it.
        let _turn = WriterTurn::queue(&self.home.index_db())?;
        self.index_sessions_in_turn(request, now, progress)
    }

    /// Whether another indexer (the app's watcher, another `ambry sessions index`) is writing
    /// the session index right now, so that `index_sessions` would first wait for it to finish.
    pub fn session_indexer_at_work(&self) -> bool {
        matches!(WriterTurn::if_free(&self.home.index_db()), Ok(None))
    }

    fn index_sessions_in_turn(
        &self,
        request: &IndexRequest,
        now: chrono::DateTime<chrono::Utc>,
        progress: &mut dyn FnMut(IndexProgress),
    ) -> Result<IndexSummary, WorkspaceError> {
        let config = self.config_or_retrieval_defaults()?.sessions;
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
        let mut summary = index.index(
            &self.session_roots(),
            &config,
            request.only,
            now.timestamp(),
            progress,
        )?;
        summary.vault_kept = vault_kept;
        Ok(summary)
    }

    /// Recall over past sessions. With `index_first` the index is brought up to date before
    /// searching; another indexer at work only means the results may miss its newest lines,
    /// which `notes` says. A query past the bounds is cut to its first words, which `notes` says
    /// too (see `recall_bound`). `now` dates transcripts that indexing finds gone.
    pub fn recall(
        &self,
        query: &RecallQuery,
        index_first: bool,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(Vec<RecallHit>, Vec<String>), WorkspaceError> {
        self.recalled
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut notes = Vec::new();
        let (text, cut) = super::recall_bound::bounded_recall_text(&query.text);
        notes.extend(cut);
        let query = &RecallQuery {
            text,
            limit: query.limit,
            source: query.source,
            cwd_prefix: query.cwd_prefix.clone(),
        };
        if index_first {
            match WriterTurn::if_free(&self.home.index_db())? {
                Some(_turn) => match self.index_sessions_in_turn(&IndexRequest::default(), now, &mut |_| {}) {
                    Ok(summary) => notes.extend(summary.problems.iter().map(|p| p.describe())),
                    Err(WorkspaceError::Sessions(e @ SessionError::Busy { .. })) => {
                        notes.push(format!("searching without indexing first: {e}"))
                    }
                    Err(e) => return Err(e),
                },
                None => notes.push("searching without indexing first: another indexer is at work, so its newest lines may be missing".into()),
            }
        }
        let mut index = self.session_index()?;
        // Words first: when they are the whole answer the model is not loaded at all (a fresh
        // process would spend most of its time loading it for nothing).
        let words = index.words_first(query)?;
        if let Some(why) = &words.verdict {
            tracing::debug!("recall answered by words, the model not loaded: {why:?}");
            return Ok((words.hits, notes));
        }
        let Some(mut embedder) = self.session_embedder() else {
            return Ok((words.hits, notes));
        };
        let model = embedder.model_id().to_string();
        // The newest messages without vectors get them now (bounded, so a recall stays quick
        // after a large index run); `ambry sessions index` embeds the rest.
        // Not queued behind a running indexer: a recall answers now, by words where it must.
        let fill = match WriterTurn::if_free(&self.home.index_db())? {
            Some(_turn) => index.fill_vectors(&mut embedder, Some(RECALL_FILL_LIMIT), &mut |_| {}),
            None => {
                let waiting = index.unembedded_count().map_err(SessionError::Sql)?;
                notes.extend((waiting > 0).then(|| format!("{waiting} message(s) not embedded yet are found by their words only while another indexer is at work")));
                Ok(VectorFill::default())
            }
        };
        match fill {
            Ok(fill) if fill.remaining > 0 => notes.push(format!(
                "{} message(s) not embedded yet are found by their words only; `ambry sessions index` embeds them",
                fill.remaining
            )),
            Ok(_) => {}
            Err(e) => notes.push(format!("searching by words only: {}", describe_fill_error(&e))),
        }
        let vector = match embedder.embed(std::slice::from_ref(&query.text)) {
            Ok(mut v) => v.pop().unwrap_or_default(),
            Err(e) => {
                notes.push(format!("searching by words only: {e}"));
                return Ok((words.hits, notes));
            }
        };
        let semantic = QueryVector {
            vector: &vector,
            model: &model,
        };
        Ok((index.recall_adding_meaning(words, semantic)?, notes))
    }

    /// Gives every user and assistant message without a vector one (at most `limit` of them,
    /// newest first), when the model can be had; `Err` says why none were made.
    pub fn embed_sessions(
        &self,
        limit: Option<usize>,
        progress: &mut dyn FnMut(VectorFill),
    ) -> Result<VectorFill, WorkspaceError> {
        let mut embedder = match self.session_embedder() {
            Some(embedder) => embedder,
            None => {
                let config = self.config()?;
                self.semantic_scorer(config.retrieval.strategy, &config)?;
                return Err(ModelUnavailable::NotLent.into());
            }
        };
        let mut index = self.session_index()?;
        index
            .fill_vectors(&mut embedder, limit, progress)
            .map_err(|e| match e {
                FillError::Index(e) => e.into(),
                FillError::Model(e) => e.into(),
            })
    }

    /// The model for session vectors, unless the configured strategy is lexical or the model
    /// cannot be loaded (recall then works by words alone). Lent per batch: a fill of thousands
    /// of messages must not keep the process's searches from the model.
    fn session_embedder(&self) -> Option<ModelPerBatch<Embedder>> {
        let config = self.config_or_retrieval_defaults().ok()?;
        let scorer = self
            .semantic_scorer(config.retrieval.strategy, &config)
            .ok()?;
        ModelPerBatch::new(scorer.embedder()).ok()
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
    ) -> Result<ambry_sessions::sessions::VaultPruneReport, WorkspaceError> {
        Ok(self
            .session_index()?
            .prune_source_removed(older_than_days, now.timestamp(), dry_run)?)
    }

    pub fn session_stats(&self) -> Result<IndexStats, WorkspaceError> {
        Ok(self.session_index()?.stats()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::LaunchEnv;
    use ambry_store::home::AmbryHome;
    use std::sync::mpsc::channel;

    fn say(text: &str) -> String {
        format!(
            "{}\n",
            serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": "user", "text": text})
        )
    }

    /// A pasted document as the question: cut to its first words, answered, and said so.
    #[test]
    fn a_very_long_query_is_cut_to_its_first_words_and_answered() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("home"));
        let ws = Workspace::new(
            home.clone(),
            LaunchEnv::with_models_dir(tmp.path().join("no-models")),
        );
        let transcript = home.sessions_dir().join("s.jsonl");
        std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
        std::fs::write(&transcript, say("the whiskey deploy")).unwrap();
        let now = chrono::DateTime::from_timestamp(1_780_000_000, 0).unwrap();
        let long: String = std::iter::once("whiskey ".to_string())
            .chain((0..400_000).map(|i| format!("filler{i} ")))
            .collect();
        assert_eq!(ws.calls_answered(), 0);
        let (hits, notes) = ws.recall(&RecallQuery::new(long), true, now).unwrap();
        assert_eq!(
            ws.calls_answered(),
            1,
            "a recall counts as a call (a service it keeps busy is not idle)"
        );
        assert_eq!(hits.len(), 1, "the first words still find the session");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("cut to its first 32 distinct word(s)")
                    && n.contains("400001 distinct words")),
            "{notes:?}"
        );
    }

    /// A recall typed while the watcher (or a CLI run) indexes must answer from what is indexed,
    /// not queue behind a run that may take minutes.
    #[test]
    fn a_recall_during_another_indexers_run_searches_what_is_indexed_and_says_so() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("home"));
        let ws = Workspace::new(
            home.clone(),
            LaunchEnv::with_models_dir(tmp.path().join("no-models")),
        );
        let transcript = home.sessions_dir().join("s.jsonl");
        std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
        std::fs::write(&transcript, say("the whiskey deploy")).unwrap();
        let now = chrono::DateTime::from_timestamp(1_780_000_000, 0).unwrap();
        ws.index_sessions(&IndexRequest::default(), now, &mut |_| {})
            .unwrap();
        std::fs::write(
            &transcript,
            format!("{}{}", say("the whiskey deploy"), say("a yankee rollback")),
        )
        .unwrap();

        let (held, wait_for_held) = channel();
        let (release, wait_for_release) = channel::<()>();
        let indexer = {
            let db = home.index_db();
            std::thread::spawn(move || {
                let _turn = WriterTurn::queue(&db).unwrap();
                held.send(()).unwrap();
                let _ = wait_for_release.recv();
            })
        };
        wait_for_held.recv().unwrap();
        let (hits, notes) = ws.recall(&RecallQuery::new("yankee"), true, now).unwrap();
        assert!(hits.is_empty(), "the new line is not indexed yet: {hits:?}");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("another indexer is at work")),
            "{notes:?}"
        );
        let (hits, _) = ws.recall(&RecallQuery::new("whiskey"), true, now).unwrap();
        assert_eq!(hits.len(), 1, "what is indexed is found");

        release.send(()).unwrap();
        indexer.join().unwrap();
        let (hits, notes) = ws.recall(&RecallQuery::new("yankee"), true, now).unwrap();
        assert_eq!(
            hits.len(),
            1,
            "indexed first once the turn is free: {notes:?}"
        );
        assert!(notes.is_empty(), "{notes:?}");
    }
}
