//! The review inbox through the workspace (DESIGN §14): the findings of one view and the
//! actions a person takes on them, each write telling the caches at once.
//!
//! Owns: which vector each memory is judged with — its sidecar when it is current for the
//! configured model, else one embedded now with the workspace's model (never written: the
//! review reads, it does not write); without the model, words alone; each memory's last use by
//! an agent from the usage summaries; the pending distill proposals of the view. The rules live
//! in `lifecycle` and `distill`.
//! Deliberately does not: read the clock (callers pass `now`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::{Workspace, WorkspaceError};
use crate::embed::{embedded_text, read_sidecar, sidecar_path, text_hash, TextEmbedder};
use crate::lifecycle::{self, AgentUse, Finding};
use crate::memory::{Memory, Scope, Store};

impl Workspace {
    /// The review inbox of `store`'s view (the user scope and its project) as of `now`.
    pub fn review(
        &self,
        store: &Store,
        now: DateTime<Utc>,
    ) -> Result<Vec<Finding>, WorkspaceError> {
        let config = self.config()?;
        let paths = self.model_paths(&config);
        // A configured lexical strategy means no model: the review then judges on words too.
        let scorer = self
            .semantic_scorer(config.retrieval.strategy, &config)
            .ok();
        let vector_of = |m: &Memory| -> Option<Vec<f32>> {
            let scorer = scorer.as_ref()?;
            let text = embedded_text(&m.name, &m.description, &m.body);
            if let Some(sidecar) = read_sidecar(&sidecar_path(&m.path)) {
                if sidecar.header.model_id == paths.model_id()
                    && sidecar.header.text_hash == text_hash(&text)
                {
                    return Some(sidecar.vector);
                }
            }
            let embedder = scorer.embedder();
            let mut embedder = embedder.lock().ok()?;
            embedder.embed(&[text]).ok()?.pop()
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
        findings.extend(
            self.proposals(store)?
                .into_iter()
                .map(|p| Finding::Proposal(Box::new(p))),
        );
        Ok(findings)
    }

    /// Keep a memory as it is: quiet in the inbox until its text changes.
    pub fn review_keep(
        &self,
        store: &Store,
        scope: Scope,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<Memory, WorkspaceError> {
        let kept = lifecycle::keep(store, scope, name, now)?;
        self.memories_written();
        Ok(kept)
    }

    /// Mark `name` superseded by `by`: it is no longer injected.
    pub fn review_supersede(
        &self,
        store: &Store,
        scope: Scope,
        name: &str,
        by: &str,
        now: DateTime<Utc>,
    ) -> Result<Memory, WorkspaceError> {
        let retired = lifecycle::supersede(store, scope, name, by, now)?;
        self.memories_written();
        Ok(retired)
    }

    /// Merge `from` into `into` (with the person's merged `body`, or both bodies); `from` is
    /// archived and forgotten.
    pub fn review_merge(
        &self,
        store: &Store,
        into: (Scope, &str),
        from: (Scope, &str),
        body: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<Memory, WorkspaceError> {
        let merged = lifecycle::merge(store, into, from, body, now)?;
        self.memories_written();
        Ok(merged)
    }
}
