//! Team memory through the workspace (DESIGN §15): trusting a repository's team memory,
//! moving a memory between the person's project scope and the team's, and the rule that an
//! agent writes team memory only where the person trusts it.
//!
//! Owns: those operations and what they report. The scope itself (where, links, what git
//! ignores, the trust record) is `memory::team`'s; what is injected follows from
//! `Store::scopes`.
//! Deliberately does not: run git — the person commits team memory with their code.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_rank::embed::{self, SavedWithVector};
use ambry_store::memory::{team, Scope, ScopeFilter, Store, StoreError};

/// A repository's team memory and whether this person trusts it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamTrust {
    pub project: String,
    pub root: PathBuf,
    pub dir: PathBuf,
    pub trusted: bool,
    /// Team memories in the working tree now.
    pub memories: usize,
}

impl Workspace {
    /// The team memory of the repository `cwd` belongs to, and whether it is trusted.
    pub fn team_trust(&self, cwd: &Path) -> Result<TeamTrust, WorkspaceError> {
        let store = self.store_at(cwd);
        let project = store.project().cloned().ok_or(StoreError::NoProject)?;
        let dir = store.dir(Scope::Team)?;
        let memories = store
            .list(ScopeFilter::Team)?
            .iter()
            .filter(|f| f.parsed.is_ok())
            .count();
        Ok(TeamTrust {
            trusted: store.team_trusted(),
            project: project.slug,
            root: project.root,
            dir,
            memories,
        })
    }

    /// A known project's team memory for the app's sidebar: how many, and whether trusted
    /// (nothing when the project has no folder on this machine).
    pub fn team_of(&self, slug: &str) -> Result<Option<TeamTrust>, WorkspaceError> {
        let known = self.project(slug)?;
        match known.roots.first() {
            Some(root) if root.is_dir() => Ok(self.team_trust(root).ok()),
            _ => Ok(None),
        }
    }

    /// Trusts (or with `trusted == false`, stops trusting) the team memory of the repository
    /// `cwd` belongs to: from the next turn on, agents are given it (or no longer are).
    pub fn set_team_trust(
        &self,
        cwd: &Path,
        trusted: bool,
        now: DateTime<Utc>,
    ) -> Result<TeamTrust, WorkspaceError> {
        let place = self.place_at(cwd);
        let project = place.project().cloned().ok_or(StoreError::NoProject)?;
        team::set_trusted(&self.home, &project.slug, &project.root, trusted, now)?;
        if trusted {
            self.all_team_seen(&place)?;
        }
        self.memories_written();
        self.team_trust(cwd)
    }

    /// `memory promote`: the person's project memory becomes the team's (in the working tree,
    /// for them to commit), with its history; `demote` the other way.
    pub fn move_to_scope(
        &self,
        place: &Place,
        name: &str,
        to: Scope,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        let from = match to {
            Scope::Team => Scope::Project,
            Scope::Project => Scope::Team,
            Scope::User => {
                return Err(StoreError::InvalidField {
                    field: "scope",
                    reason: "promote moves a project memory to the team, demote a team memory to the project".into(),
                }
                .into())
            }
        };
        let models = self.model_paths(&self.config_or_retrieval_defaults()?);
        let moved = embed::with_vector(store.move_scope(name, from, to, now)?, &models);
        self.memories_written();
        self.own_team_write(store, &moved);
        Ok(moved)
    }

    /// The review inbox's "changed by the team" findings: team memories (of a trusted
    /// repository) whose text differs from what this person last saw.
    pub(super) fn team_changes(&self, store: &Store) -> Vec<ambry_lifecycle::lifecycle::Finding> {
        let Some(project) = store.project().filter(|_| store.team_trusted()) else {
            return Vec::new();
        };
        let Ok(files) = store.list(ScopeFilter::Team) else {
            return Vec::new();
        };
        files
            .into_iter()
            .filter_map(|f| f.parsed.ok())
            .filter_map(|m| {
                let before = team::seen(&self.home, &project.slug, &m.name);
                (before.as_deref() != Some(m.body.as_str())).then(|| {
                    ambry_lifecycle::lifecycle::Finding::ChangedByTeam {
                        memory: ambry_lifecycle::lifecycle::Subject::of(&m),
                        before: before.unwrap_or_default(),
                    }
                })
            })
            .collect()
    }

    /// This person has looked at team memory `name` as it reads now (the inbox's "seen").
    pub fn team_seen(&self, place: &Place, name: &str) -> Result<(), WorkspaceError> {
        let store = place.store();
        let project = store.project().ok_or(StoreError::NoProject)?;
        let memory = store.get(Some(Scope::Team), name)?;
        team::mark_seen(&self.home, &project.slug, name, &memory.body)?;
        Ok(())
    }

    /// What this person writes to team memory through Ambry they have seen: it is no
    /// "changed by the team" finding. Best effort: the write itself succeeded.
    pub(super) fn own_team_write(&self, store: &Store, saved: &SavedWithVector) {
        let memory = &saved.outcome.memory;
        if memory.scope == Scope::Team {
            if let Some(project) = store.project() {
                let _ = team::mark_seen(&self.home, &project.slug, &memory.name, &memory.body);
            }
        }
    }

    /// Marks every team memory of the repository as seen (trusting it is looking at it).
    fn all_team_seen(&self, place: &Place) -> Result<(), WorkspaceError> {
        for file in place.store().list(ScopeFilter::Team)? {
            if let Ok(m) = file.parsed {
                self.team_seen(place, &m.name)?;
            }
        }
        Ok(())
    }

    /// An agent (MCP) may write team memory only in a repository the person trusts.
    pub fn agent_may_write(&self, place: &Place, scope: Scope) -> Result<(), WorkspaceError> {
        let store = place.store();
        if scope == Scope::Team && !store.team_trusted() {
            return Err(StoreError::InvalidField {
                field: "scope",
                reason: "this repository's team memory is not trusted here; the person runs `ambry trust` in it first (saving to `project` needs no trust)".into(),
            }
            .into());
        }
        Ok(())
    }
}
