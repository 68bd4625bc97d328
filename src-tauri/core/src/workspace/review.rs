//! The review inbox through the workspace (DESIGN §14): the findings of one view and the
//! actions a person takes on them, each write telling the caches at once.
//!
//! Owns: nothing beyond the façade (the inbox is the lifecycle's findings and the pending
//! distill proposals of the view); the rules live in `lifecycle` and `distill`.
//! Deliberately does not: read the clock (callers pass `now`).

use chrono::{DateTime, Utc};

use super::{Workspace, WorkspaceError};
use crate::lifecycle::{self, Finding};
use crate::memory::{Memory, Scope, Store};

impl Workspace {
    /// The review inbox of `store`'s view (the user scope and its project) as of `now`.
    pub fn review(
        &self,
        store: &Store,
        now: DateTime<Utc>,
    ) -> Result<Vec<Finding>, WorkspaceError> {
        let mut findings = lifecycle::review(store, now.date_naive())?;
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
