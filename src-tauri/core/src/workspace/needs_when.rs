//! The review inbox's "needs when" findings (DESIGN §5): memories without `when` that an agent
//! fetched in a recent session before that session was given their body — the gate left out a
//! memory the agent needed. Each finding carries the prompts the fetches answered, the first
//! `when` phrases to give it.
//!
//! Owns: joining each session's fetches (its transcript) with what the ledger says it was given,
//! and which memories qualify (in the view, no `when`, not retired, not kept as is).
//! Deliberately does not: recognise a fetch in a transcript (`lifecycle::needs_when` does),
//! choose the sessions (`held_sessions` does) or write a `when` (the person does).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};

use super::held_sessions::HeldSession;
use super::Workspace;
use ambry_lifecycle::lifecycle::needs_when::{self, MissedFetch};
use ambry_lifecycle::lifecycle::{Finding, Subject};
use ambry_store::memory::{Memory, Scope, Store};

/// Misses shown per finding, newest first.
const MISSES_SHOWN: usize = 3;

impl Workspace {
    pub(super) fn needs_when_findings(
        &self,
        store: &Store,
        sessions: &[HeldSession],
        now: DateTime<Utc>,
    ) -> Vec<Finding> {
        let today = Some(now.date_naive());
        // Each name an agent fetched, read once: the memory it got (the project's copy shadows
        // the user's, as a fetch without a scope reads it), when it is one that should say when.
        let mut read: HashMap<String, Option<Memory>> = HashMap::new();
        // By memory (scope, name): the memory and every miss, in any session.
        let mut misses: BTreeMap<(Scope, String), (Memory, Vec<MissedFetch>)> = BTreeMap::new();
        for session in sessions {
            for fetch in needs_when::fetches(&session.transcript) {
                let memory = read.entry(fetch.name.clone()).or_insert_with(|| {
                    store.get(None, &fetch.name).ok().filter(|m| {
                        m.lifecycle.when.is_empty() && !m.reviewed_as_is() && !m.is_retired(today)
                    })
                });
                let Some(memory) = memory else {
                    continue;
                };
                let key = (memory.scope, memory.name.clone());
                if !needs_when::is_miss(fetch.at, session.given.get(&key).copied()) {
                    continue;
                }
                misses
                    .entry(key)
                    .or_insert_with(|| (memory.clone(), Vec::new()))
                    .1
                    .push(MissedFetch {
                        session_id: session.session_id.clone(),
                        agent: session.agent.clone(),
                        fetch,
                    });
            }
        }
        let mut found = Vec::new();
        for (_, (memory, mut fetches)) in misses {
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
