//! What a person does with past sessions in the app: recall as they type, keep a passage as a
//! memory, prune a transcript whose file is gone, see what Ambry gave a session.
//!
//! Owns: `recall_for_reader` (runs folded under their conversation; answered by words while the
//! model would first have to load), `save_passage` (a new memory whose `source:` names the
//! session), `prune_vaulted_session` (one session) and `session_injections`.
//! Deliberately does not: rank (see `sessions::recall`), index (the watcher does), or decide how
//! a passage is worded (the person writes the draft).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_compose::ledger::Injection;
use ambry_rank::embed::{self, SavedWithVector};
use ambry_sessions::sessions::{group_recall_runs, RecallGroup, RecallQuery, VaultedFile};
use ambry_store::memory::{MemoryDraft, Scope, StoreError};

/// What `recall_for_reader` found.
#[derive(Debug, Clone, Serialize)]
pub struct ReaderRecall {
    pub hits: Vec<RecallGroup>,
    pub notes: Vec<String>,
    /// Answered by words while the model loads; ask again with `wait_for_model` to refine.
    pub model_pending: bool,
}

impl Workspace {
    /// Recall for a person reading results as they type: runs folded under their conversation,
    /// and, unless `wait_for_model`, answered by words alone while the model would first have
    /// to load (seconds on a cold start; `model_pending` then says a second call with
    /// `wait_for_model` refines it). Never indexes first: a watcher keeps the index current
    /// where a person reads.
    pub fn recall_for_reader(
        &self,
        query: &RecallQuery,
        wait_for_model: bool,
    ) -> Result<ReaderRecall, WorkspaceError> {
        if !wait_for_model && self.model_load_pending() {
            return Ok(ReaderRecall {
                model_pending: true,
                ..self.recall_by_words(query)?
            });
        }
        let (hits, notes) = self.recall(query, false, Utc::now())?;
        Ok(ReaderRecall {
            hits: group_recall_runs(hits),
            notes,
            model_pending: false,
        })
    }

    /// Recall by words alone, never touching the model (no query vector, no vector fill that
    /// would hold the model while a memory search needs it): for the palette, where sessions
    /// are a few rows under the memories and must not slow the keystroke.
    pub fn recall_by_words(&self, query: &RecallQuery) -> Result<ReaderRecall, WorkspaceError> {
        Ok(ReaderRecall {
            hits: group_recall_runs(self.session_index()?.recall(query)?),
            notes: Vec::new(),
            model_pending: false,
        })
    }

    /// A new memory from a passage of a session: refused when the name is taken (a passage
    /// never overwrites a memory), its `source:` names the session so the memory can be traced
    /// back to where it was said.
    pub fn save_passage(
        &self,
        place: &Place,
        scope: Scope,
        draft: MemoryDraft,
        session_id: &str,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        let meta = self.sessions_index_meta(session_id)?.ok_or_else(|| {
            ambry_sessions::sessions::SessionError::NotFound {
                id: session_id.to_string(),
            }
        })?;
        if store
            .dir(scope)?
            .join(format!("{}.md", draft.name))
            .exists()
        {
            return Err(StoreError::AlreadyExists {
                scope: scope.to_string(),
                name: draft.name,
            }
            .into());
        }
        let source = format!("session {} {}", meta.source, meta.session_id);
        let outcome = store.save_with_keys(scope, draft, &[("source", &source)], now)?;
        let saved = embed::with_vector(outcome, &self.model_paths(&self.config()?));
        self.memories_written();
        Ok(saved)
    }

    fn sessions_index_meta(
        &self,
        session_id: &str,
    ) -> Result<Option<ambry_sessions::sessions::SessionMeta>, WorkspaceError> {
        match self.transcript(session_id) {
            Ok(t) => Ok(Some(t.meta)),
            Err(WorkspaceError::Sessions(ambry_sessions::sessions::SessionError::NotFound {
                ..
            })) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Removes one session whose transcript file was deleted (the index's copy was all that
    /// was left). A session whose file still exists is refused: the watcher would only index
    /// it again.
    pub fn prune_vaulted_session(&self, session_id: &str) -> Result<VaultedFile, WorkspaceError> {
        Ok(self.session_index()?.prune_one_removed(session_id)?)
    }

    /// What Ambry injected into one session, as the ledger recorded it (oldest first).
    pub fn session_injections(&self, session_id: &str) -> Result<Vec<Injection>, WorkspaceError> {
        self.injections(Some(session_id), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::{IndexRequest, LaunchEnv};
    use ambry_store::home::AmbryHome;

    fn line(role: &str, text: &str) -> String {
        format!(
            "{}\n",
            serde_json::json!({"ts": "2026-06-01T10:00:00Z", "role": role, "text": text})
        )
    }

    #[test]
    fn a_passage_becomes_a_memory_naming_its_session_and_a_gone_transcript_is_pruned() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("home"));
        let ws = Workspace::new(
            home.clone(),
            LaunchEnv::with_models_dir(tmp.path().join("no-models")),
        );
        let transcript = home.sessions_dir().join("s.jsonl");
        std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
        std::fs::write(
            &transcript,
            line("user", "deploys go through the blue pool"),
        )
        .unwrap();
        let now = DateTime::from_timestamp(1_780_000_000, 0).unwrap();
        ws.index_sessions(&IndexRequest::default(), now, &mut |_| {})
            .unwrap();
        let id = ws.sessions(None, 10).unwrap()[0].session_id.clone();

        let store = ws.place_of(None).unwrap();
        let draft = MemoryDraft {
            name: "blue-pool".into(),
            kind: "project".into(),
            description: "Where deploys go".into(),
            body: "deploys go through the blue pool".into(),
            tags: Vec::new(),
        };
        ws.save_passage(&store, Scope::User, draft.clone(), &id, now)
            .unwrap();
        let saved = store.store().get(Some(Scope::User), "blue-pool").unwrap();
        assert_eq!(
            saved.lifecycle.source.as_deref(),
            Some(format!("session ambry {id}").as_str())
        );
        let again = ws.save_passage(&store, Scope::User, draft, &id, now);
        assert!(
            matches!(
                again,
                Err(WorkspaceError::Store(StoreError::AlreadyExists { .. }))
            ),
            "a passage never overwrites: {again:?}"
        );

        let refused = ws.prune_vaulted_session(&id).unwrap_err();
        assert_eq!(
            ambry_store::error::ErrorCode::code(&refused),
            "session_not_vaulted"
        );
        std::fs::remove_file(&transcript).unwrap();
        ws.index_sessions(&IndexRequest::default(), now, &mut |_| {})
            .unwrap();
        assert_eq!(ws.prune_vaulted_session(&id).unwrap().session_id, id);
        assert!(ws.sessions(None, 10).unwrap().is_empty());
    }

    /// The first search must not wait seconds for the model: while it would load, the answer
    /// comes by words and says a ranked one can follow.
    #[test]
    fn a_recall_while_the_model_would_load_answers_by_words_first() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("home"));
        let models = tmp.path().join("models");
        let ws = Workspace::new(home.clone(), LaunchEnv::with_models_dir(&models));
        let transcript = home.sessions_dir().join("s.jsonl");
        std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
        std::fs::write(&transcript, line("user", "the whiskey deploy")).unwrap();
        let now = DateTime::from_timestamp(1_780_000_000, 0).unwrap();
        ws.index_sessions(&IndexRequest::default(), now, &mut |_| {})
            .unwrap();

        // No model assets: nothing to wait for, so no refinement is promised.
        let answer = ws
            .recall_for_reader(&RecallQuery::new("whiskey"), false)
            .unwrap();
        assert!(!answer.model_pending);
        assert_eq!(answer.hits.len(), 1);

        // Assets present but not loaded: answered by words now, a ranked answer promised.
        // (Never loaded here: these files are placeholders.)
        let paths = ws.model_paths(&ws.config().unwrap());
        std::fs::create_dir_all(paths.runtime().parent().unwrap()).unwrap();
        std::fs::write(paths.runtime(), b"").unwrap();
        std::fs::create_dir_all(paths.model_dir()).unwrap();
        for file in ambry_rank::embed::MODEL_FILES {
            std::fs::write(paths.model_dir().join(file), b"").unwrap();
        }
        let answer = ws
            .recall_for_reader(&RecallQuery::new("whiskey"), false)
            .unwrap();
        assert!(answer.model_pending, "the model would load first");
        assert_eq!(answer.hits.len(), 1, "found by its words meanwhile");
        let by_words = ws.recall_by_words(&RecallQuery::new("whiskey")).unwrap();
        assert!(!by_words.model_pending, "words alone promise nothing more");
        assert_eq!(by_words.hits.len(), 1);
        assert_eq!(
            answer.hits[0].hit.session_id,
            ws.sessions(None, 1).unwrap()[0].session_id
        );
    }
}
