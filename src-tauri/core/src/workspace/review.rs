//! The review inbox through the workspace (DESIGN §14): the findings of one view and the
//! actions a person takes on them, each write telling the caches at once.
//!
//! Owns: which vector each memory is judged with — its sidecar when it is current for the
//! configured model, else one embedded now with the workspace's model, loaded only then (never
//! written: the review reads, it does not write); without the model, words alone; each memory's last use by
//! an agent from the usage summaries; the pending distill proposals of the view; the vectors it
//! read or embedded, kept by text so a review counted after every memory change (the sidebar's
//! count) reads and embeds only what changed; the person's agent's kept verdicts beside the
//! pairs it judged; undoing a supersede or a merge by restoring the versions it replaced (each
//! with its vector). The rules live in `lifecycle`, `distill` and `ask`.
//! Deliberately does not: read the clock (callers pass `now`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::place::Place;
use super::{lock, Workspace, WorkspaceError};
use ambry_lifecycle::ask::{self, Verdicts};
use ambry_lifecycle::lifecycle::sentences::MergeDraft;
use ambry_lifecycle::lifecycle::{self, Acted, AgentUse, Finding, MergeText, Replaced};
use ambry_rank::embed::SavedWithVector;
use ambry_rank::embed::{
    embedded_text, read_sidecar, sidecar_path, text_hash, TextEmbedder, TextHash,
};
use ambry_store::config::Strategy;
use ambry_store::memory::{Memory, Scope};

/// Past this many kept vectors (texts changed many times over) the cache starts again.
const MAX_KEPT_VECTORS: usize = 20_000;

/// The vectors the review embedded for memories without a current sidecar, by the model and the
/// exact text embedded: a memory whose text changed has another hash, so a change on disk (the
/// watcher's, or a write here) is never answered from here with the old text's vector.
#[derive(Default)]
pub(super) struct ReviewVectors {
    model_id: String,
    by_text: HashMap<TextHash, Vec<f32>>,
    /// How many texts the review has embedded so far (the work the cache saves shows here).
    pub(super) embedded: u64,
}

impl Workspace {
    /// The review inbox of `store`'s view (the user scope and its project) as of `now`.
    pub fn review(
        &self,
        place: &Place,
        now: DateTime<Utc>,
    ) -> Result<Vec<Finding>, WorkspaceError> {
        let store = place.store();
        let config = self.config()?;
        let paths = self.model_paths(&config);
        // A configured lexical strategy, or no model installed, means words only. The model is
        // loaded only for a memory without a current sidecar: at 10 000 memories with their
        // sidecars, loading it anyway cost a review 120 MB of its 500.
        let semantic = matches!(
            config.retrieval.strategy,
            Strategy::Semantic | Strategy::Auto
        ) && paths.check().is_ok();
        let scorer = std::cell::OnceCell::new();
        let vector_of = |m: &Memory| -> Option<Vec<f32>> {
            if !semantic {
                return None;
            }
            let text = embedded_text(&m.name, &m.description, &m.body);
            let hash = text_hash(&text);
            // Kept first: the count after every change then reads no sidecar of a memory whose
            // text it has judged before (10k small reads per count at 10k memories).
            {
                let mut kept = lock(&self.review_vectors);
                if kept.model_id != paths.model_id() || kept.by_text.len() > MAX_KEPT_VECTORS {
                    kept.model_id = paths.model_id().to_string();
                    kept.by_text.clear();
                }
                if let Some(vector) = kept.by_text.get(&hash) {
                    return Some(vector.clone());
                }
            }
            if let Some(sidecar) = read_sidecar(&sidecar_path(&m.path)) {
                if sidecar.header.model_id == paths.model_id() && sidecar.header.text_hash == hash {
                    lock(&self.review_vectors)
                        .by_text
                        .insert(hash, sidecar.vector.clone());
                    return Some(sidecar.vector);
                }
            }
            let scorer = scorer
                .get_or_init(|| {
                    self.semantic_scorer(config.retrieval.strategy, &config)
                        .ok()
                })
                .as_ref()?;
            let embedder = scorer.embedder();
            let vector = embedder.lock().ok()?.embed(&[text]).ok()?.pop()?;
            let mut kept = lock(&self.review_vectors);
            kept.embedded += 1;
            kept.by_text.insert(hash, vector.clone());
            Some(vector)
        };
        let last: HashMap<_, _> = self
            .usage(now)?
            .into_iter()
            .filter_map(|(key, s)| s.last_agent_use.map(|at| (key, at)))
            .collect();
        let agent_use = AgentUse {
            now,
            days: config.lifecycle.unused_days,
            last: &last,
        };
        let mut findings =
            lifecycle::review_with(store, now.date_naive(), &vector_of, Some(&agent_use))?;
        // The agent's verdicts on these very texts, beside the pairs it was asked about. A
        // damaged file leaves them out here (the review still shows) and fails the next ask.
        match Verdicts::new(self.home()).read() {
            Ok(kept) => ask::attach(&mut findings, &kept),
            Err(e) => tracing::warn!("review: the agent's verdicts are not shown: {e}"),
        }
        findings.extend(
            self.proposals(place)?
                .into_iter()
                .map(|p| Finding::Proposal(Box::new(p))),
        );
        let held = self.held_sessions(store, now);
        findings.extend(self.ignored_findings(store, &held, now));
        findings.extend(self.needs_when_findings(store, &held, now));
        findings.extend(self.team_changes(store));
        findings.extend(
            self.sync_conflicts_of(store)
                .into_iter()
                .map(|c| Finding::ChangedOnTwoMachines(Box::new(c))),
        );
        Ok(findings)
    }

    /// Keep a memory as it is: quiet in the inbox until its text changes.
    pub fn review_keep(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<Memory, WorkspaceError> {
        let store = place.store();
        let kept = lifecycle::keep(store, scope, name, now)?;
        self.memories_written();
        Ok(kept)
    }

    /// Mark `name` superseded by `by`: it is no longer injected. The versions that undo it come
    /// back with it.
    pub fn review_supersede(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        by: &str,
        now: DateTime<Utc>,
    ) -> Result<Acted, WorkspaceError> {
        let store = place.store();
        let retired = lifecycle::supersede(store, scope, name, by, now)?;
        self.memories_written();
        Ok(retired)
    }

    /// Merge `from` into `into` with the person's merged text (or the kept body taking in the
    /// other's sentences it does not say); `from` is archived and forgotten. The versions that
    /// undo it come back with it.
    pub fn review_merge(
        &self,
        place: &Place,
        into: (Scope, &str),
        from: (Scope, &str),
        text: MergeText,
        now: DateTime<Utc>,
    ) -> Result<Acted, WorkspaceError> {
        let store = place.store();
        let merged = lifecycle::merge(store, into, from, text, now)?;
        self.memories_written();
        Ok(merged)
    }

    /// What the merge editor opens with: `into`'s body and description, and `from`'s sentences
    /// that body does not say.
    pub fn review_merge_draft(
        &self,
        place: &Place,
        into: (Scope, &str),
        from: (Scope, &str),
    ) -> Result<MergeDraft, WorkspaceError> {
        Ok(lifecycle::merge_draft(place.store(), into, from)?)
    }

    /// Undoes a supersede or a merge: every version it replaced is restored (the current file
    /// archived first, each with its vector). Every version is tried; the first failure is
    /// returned after the others were restored.
    pub fn review_undo(
        &self,
        place: &Place,
        undo: &[Replaced],
        now: DateTime<Utc>,
    ) -> Result<Vec<SavedWithVector>, WorkspaceError> {
        let mut restored = Vec::with_capacity(undo.len());
        let mut first_error = None;
        for r in undo {
            match self.restore(place, r.scope, &r.name, &r.version, now) {
                Ok(saved) => restored.push(saved),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(restored),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ambry_store::home::AmbryHome;
    use ambry_store::memory::MemoryDraft;

    fn draft(name: &str, body: &str) -> MemoryDraft {
        MemoryDraft {
            name: name.into(),
            kind: "project".into(),
            description: format!("About {name}"),
            body: body.into(),
            tags: Vec::new(),
        }
    }

    /// A fresh home with the real model (`AMBRY_TEST_MODELS`, as scripts/test.sh sets it): a
    /// missing model fails the test saying what to run.
    fn with_the_model() -> (
        tempfile::TempDir,
        std::sync::Arc<Workspace>,
        Place,
        DateTime<Utc>,
    ) {
        let models = std::env::var_os("AMBRY_TEST_MODELS").unwrap_or_else(|| {
            panic!("AMBRY_TEST_MODELS is not set: run `scripts/fetch-models.sh DIR` and set AMBRY_TEST_MODELS=DIR")
        });
        let tmp = tempfile::tempdir().unwrap();
        let ws = Workspace::with_models(AmbryHome::new(tmp.path().join("home")), models);
        let store = ws.place_of(None).unwrap();
        let now = DateTime::from_timestamp(1_780_000_000, 0).unwrap();
        (tmp, ws, store, now)
    }

    #[test]
    fn a_second_review_embeds_nothing_and_a_change_embeds_only_the_changed_memory() {
        let (_tmp, ws, store, now) = with_the_model();
        // Saved by the store alone: no sidecar, so the review has to embed them.
        store
            .store()
            .save(
                Scope::User,
                draft("deploy-steps", "Tag, build, roll out."),
                now,
            )
            .unwrap();
        store
            .store()
            .save(
                Scope::User,
                draft("code-style", "rustfmt, no trailing whitespace."),
                now,
            )
            .unwrap();
        let embedded = || lock(&ws.review_vectors).embedded;

        let first = ws.review(&store, now).unwrap();
        assert_eq!(embedded(), 2, "the first review embeds both");
        let second = ws.review(&store, now).unwrap();
        assert_eq!(embedded(), 2, "a second review embedded again");
        assert_eq!(
            format!("{first:?}"),
            format!("{second:?}"),
            "the kept vectors judged otherwise"
        );

        store
            .store()
            .save(
                Scope::User,
                draft("code-style", "cargo fmt; clippy clean."),
                now,
            )
            .unwrap();
        ws.review(&store, now).unwrap();
        assert_eq!(embedded(), 3, "only the changed memory is embedded again");
    }

    /// A home indexed by `memory reindex` has a current sidecar for every memory: the review
    /// (the sidebar's count, asked at start-up and after each change) then judges with those
    /// vectors and runs the model on nothing, so it never competes with a search for the CPU.
    #[test]
    fn a_review_over_memories_with_current_sidecars_embeds_nothing() {
        let (_tmp, ws, store, now) = with_the_model();
        let model_id = ws.model_paths(&ws.config().unwrap()).model_id().to_string();
        for (name, body) in [
            ("deploy-steps", "Tag, build, roll out."),
            ("code-style", "rustfmt."),
        ] {
            let saved = store
                .store()
                .save(Scope::User, draft(name, body), now)
                .unwrap()
                .memory;
            let text = embedded_text(&saved.name, &saved.description, &saved.body);
            let vector = if name == "deploy-steps" {
                [1.0, 0.0]
            } else {
                [0.0, 1.0]
            };
            let vector: Vec<f32> = vector.iter().copied().cycle().take(384).collect();
            ambry_rank::embed::write_sidecar(
                &sidecar_path(&saved.path),
                &model_id,
                text_hash(&text),
                &vector,
            )
            .unwrap();
        }
        let first = ws.review(&store, now).unwrap();
        assert_eq!(
            lock(&ws.review_vectors).embedded,
            0,
            "a current sidecar was embedded again"
        );
        assert!(!ws.model.opened(), "the model was opened for nothing");

        // Counted again (the sidebar asks after every change): the vectors read are kept, so no
        // sidecar is read again — gone from disk, they judge the same and nothing is embedded.
        for name in ["deploy-steps", "code-style"] {
            let path = store.store().get(None, name).unwrap().path;
            std::fs::remove_file(sidecar_path(&path)).unwrap();
        }
        let second = ws.review(&store, now).unwrap();
        assert_eq!(
            lock(&ws.review_vectors).embedded,
            0,
            "a sidecar read before was embedded"
        );
        assert_eq!(format!("{first:?}"), format!("{second:?}"));

        // The same sidecar judged stale once its memory's text changes: that one is embedded.
        store
            .store()
            .save(
                Scope::User,
                draft("code-style", "cargo fmt; clippy clean."),
                now,
            )
            .unwrap();
        ws.review(&store, now).unwrap();
        assert_eq!(
            lock(&ws.review_vectors).embedded,
            1,
            "only the changed memory is embedded"
        );
        assert!(ws.model.opened(), "a stale sidecar needs the model");
    }
}
