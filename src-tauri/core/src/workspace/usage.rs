//! Usage through the workspace (DESIGN §14): recording a person's or an agent's use of a memory,
//! and the summaries lists show (last used, uses in the last 30 days).
//!
//! Owns: which file each kind of use is read from (injections from the ledger, the rest from
//! the usage log), the memory key of a store's scope, and never failing the operation a use is
//! recorded for (a use that cannot be written is logged and dropped, the read or edit goes on).
//! Also owns what a read counts as: a front end says who reads (`Reader`), never which use it is.
//! Deliberately does not: read the clock (callers pass `now`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_compose::ledger::{ledger_path, Ledger};
use ambry_compose::usage::{
    self, MemoryKey, UsageLog, UsageSummary, Use, UseKind, RECENT_DAYS, USAGE_FILE,
};
use ambry_store::memory::{Scope, ScopeFilter, Store};

use super::MemoryRow;
use ambry_store::memory::Memory;

/// Who reads a memory, which decides the use it counts as (DESIGN §14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// An agent fetched it (`memory_get`, `ambry memory get` from its shell): `fetched`.
    Agent,
    /// A person opened it in the app: `opened`.
    Person,
}

impl Workspace {
    /// One memory, read by `reader`, and the use that read is (without a scope the project's
    /// copy shadows the user's). The use is recorded without failing the read.
    pub fn read_memory(
        &self,
        place: &Place,
        scope: Option<Scope>,
        name: &str,
        reader: Reader,
        now: DateTime<Utc>,
    ) -> Result<Memory, WorkspaceError> {
        let memory = self.get(place, scope, name)?;
        let kind = match reader {
            Reader::Agent => UseKind::Fetched,
            Reader::Person => UseKind::Opened,
        };
        self.record_use(place, memory.scope, &memory.name, kind, None, now);
        Ok(memory)
    }

    /// Records one use of `name` in `scope` of `store`. Never fails the caller.
    pub fn record_use(
        &self,
        place: &Place,
        scope: Scope,
        name: &str,
        kind: UseKind,
        session: Option<&str>,
        now: DateTime<Utc>,
    ) {
        let store = place.store();
        let project = match scope {
            Scope::Team | Scope::Project => store.project().map(|p| p.slug.as_str()),
            Scope::User => None,
        };
        let recorded = UsageLog::open(self.home.root()).and_then(|log| {
            log.record(&Use {
                scope,
                project,
                name,
                kind,
                at: now,
                session,
            })
        });
        if let Err(e) = recorded {
            tracing::warn!("a use of {name} was not recorded: {e}");
        }
    }

    /// A rename moves the memory's recorded uses to its new name (the ledger keeps what was
    /// injected under which name: it is history). Never fails the rename.
    pub(super) fn usage_renamed(&self, store: &Store, scope: Scope, old: &str, new: &str) {
        if !self.home.root().join(USAGE_FILE).is_file() {
            return;
        }
        let project = match scope {
            Scope::Team | Scope::Project => store.project().map(|p| p.slug.as_str()),
            Scope::User => None,
        };
        if let Err(e) =
            UsageLog::open(self.home.root()).and_then(|log| log.rename(scope, project, old, new))
        {
            tracing::warn!("the uses of {old} stay under that name: {e}");
        }
    }

    /// Every memory's usage as of `now`. A home where nothing was used yet has no files for it,
    /// and reading creates none.
    pub fn usage(
        &self,
        now: DateTime<Utc>,
    ) -> Result<HashMap<MemoryKey, UsageSummary>, WorkspaceError> {
        let since = now - chrono::Duration::days(RECENT_DAYS);
        let injections = if ledger_path(&self.home).is_file() {
            Ledger::open(&self.home)?.body_injections(since)?
        } else {
            HashMap::new()
        };
        let logged = if self.home.root().join(USAGE_FILE).is_file() {
            UsageLog::open(self.home.root())?.uses(now)?
        } else {
            HashMap::new()
        };
        Ok(usage::summarize(&injections, &logged))
    }

    /// [`Workspace::list`] as of `now`: each row's usage, and expired memories marked retired.
    pub fn list_with_usage(
        &self,
        place: &Place,
        filter: ScopeFilter,
        now: DateTime<Utc>,
    ) -> Result<Vec<MemoryRow>, WorkspaceError> {
        let store = place.store();
        let mut rows = self.list_on(store, filter, Some(now.date_naive()))?;
        if let Some(project) = store
            .project()
            .filter(|_| rows.iter().any(|r| r.scope == Scope::Team))
        {
            let states = ambry_store::memory::team::git_states(&project.root);
            for row in rows.iter_mut().filter(|r| r.scope == Scope::Team) {
                row.git = states.get(&row.name).copied();
            }
        }
        let usage = self.usage(now)?;
        for row in &mut rows {
            let key = (
                row.scope,
                row.project.clone().unwrap_or_default(),
                row.name.clone(),
            );
            if let Some(s) = usage.get(&key) {
                row.last_used = s.last_used;
                row.uses_30d = s.uses_30d;
            }
        }
        Ok(rows)
    }
}
