//! The review inbox's "needs when" findings (DESIGN §5): memories without `when` that an agent
//! fetched in a recent session before that session was given their body — the gate left out a
//! memory the agent needed. Each finding carries the prompts the fetches answered, the first
//! `when` phrases to give it.
//!
//! Owns: joining each session's fetches (its transcript) with what the ledger says it was given,
//! and which memories qualify (in the view, no `when`, not retired, not kept as is).
//! Deliberately does not: recognise a fetch in a transcript (`lifecycle::needs_when` does),
//! choose the sessions (`held_sessions` does) or write a `when` (the person does).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::held_sessions::HeldSession;
use super::Workspace;
use ambry_lifecycle::lifecycle::needs_when::{self, MissedFetch};
use ambry_lifecycle::lifecycle::{Finding, Subject};
use ambry_store::memory::Store;

/// Misses shown per finding, newest first.
const MISSES_SHOWN: usize = 3;

impl Workspace {
    pub(super) fn needs_when_findings(
        &self,
        store: &Store,
        sessions: &[HeldSession],
        now: DateTime<Utc>,
    ) -> Vec<Finding> {
        // By memory (scope, name): every miss, in any session.
        let mut misses: BTreeMap<(ambry_store::memory::Scope, String), Vec<MissedFetch>> =
            BTreeMap::new();
        for session in sessions {
            for fetch in needs_when::fetches(&session.transcript) {
                // The memory the agent got: the project's copy shadows the user's, as a fetch
                // without a scope reads it.
                let Ok(memory) = store.get(None, &fetch.name) else {
                    continue;
                };
                let given = session
                    .given
                    .get(&(memory.scope, memory.name.clone()))
                    .copied();
                if !needs_when::is_miss(fetch.at, given) {
                    continue;
                }
                misses
                    .entry((memory.scope, memory.name.clone()))
                    .or_default()
                    .push(MissedFetch {
                        session_id: session.session_id.clone(),
                        agent: session.agent.clone(),
                        fetch,
                    });
            }
        }
        let today = Some(now.date_naive());
        let mut found = Vec::new();
        for ((scope, name), mut fetches) in misses {
            let Ok(memory) = store.get(Some(scope), &name) else {
                continue;
            };
            if !memory.lifecycle.when.is_empty()
                || memory.reviewed_as_is()
                || memory.is_retired(today)
            {
                continue;
            }
            fetches.sort_by_key(|f| std::cmp::Reverse(f.fetch.at));
            let more = fetches.len().saturating_sub(MISSES_SHOWN);
            fetches.truncate(MISSES_SHOWN);
            found.push(Finding::NeedsWhen {
                memory: Subject::of(&memory),
                fetches,
                more,
            });
        }
        found
    }
}
