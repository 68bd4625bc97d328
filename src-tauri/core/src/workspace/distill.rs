//! Distill through the workspace (DESIGN §14): choosing the transcripts of a run from the
//! session index, running it for one view, the proposals of that view, and accepting or
//! rejecting one (an accepted memory gets its vector and the caches hear of it at once).
//!
//! Owns: the selection rule (`--session ID`; `--since DATE` alone: every session active from
//! that day on, each distilled for the project it ran in; else the view's project sessions,
//! from `--since` on when given with `project`; a view without a project needs a session or a
//! date), which store a session belongs to, and one budget across the projects of a run.
//! Deliberately does not: plan, prompt, judge answers or spawn (all in `ambry_lifecycle::distill`), or
//! read the clock (callers pass `now`).

use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Deserialize;

use super::place::Place;
use super::{Workspace, WorkspaceError};
use ambry_lifecycle::distill::{
    self, AgentRunner, DistillError, DistillReport, Edits, Inbox, Proposal, StopHandle,
};
use ambry_rank::embed::{self, SavedWithVector};
use ambry_sessions::sessions::{SessionMeta, Transcript};
use ambry_store::config::{DistillAgent, DistillConfig};
use ambry_store::memory::Store;

/// Which transcripts a run reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Selection {
    /// One session by id.
    pub session: Option<String>,
    /// Sessions active on or after this day: of every project, unless `project` is set.
    pub since: Option<NaiveDate>,
    /// Only the sessions of the view's project (the default when the view has one and no
    /// `since` is given).
    #[serde(default)]
    pub project: bool,
}

/// How many sessions a selection may list before it is bounded by the budget.
const SESSION_SCAN: usize = 100_000;

impl Workspace {
    /// Arguments the agent's child gets before its own: for Codex, every MCP server of the
    /// person's config switched off (the child gets no tool that writes).
    pub(super) fn child_args(&self, agent: DistillAgent) -> Vec<String> {
        match (agent, self.agent_env()) {
            (DistillAgent::Codex, Ok(env)) => std::fs::read_to_string(env.codex_config())
                .map(|text| distill::child::codex_servers_off(&text))
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The store a session's proposals belong to: the project of the folder it ran in when
    /// that folder still exists, else the user scope alone.
    pub fn place_of_session(&self, session_id: &str) -> Result<Place, WorkspaceError> {
        Ok(Place::new(
            self.store_of_transcript(&self.transcript(session_id)?),
        ))
    }

    /// Whether `selection` reaches past the view's project: `--since` without `--project`
    /// means every session active from that day on, whichever project it ran in, as its help
    /// says; each is then distilled for its own project (see `distill_with`).
    fn across_projects(selection: &Selection) -> bool {
        selection.session.is_none() && selection.since.is_some() && !selection.project
    }

    fn selected(
        &self,
        store: &Store,
        selection: &Selection,
    ) -> Result<Vec<Transcript>, WorkspaceError> {
        if let Some(id) = &selection.session {
            return Ok(vec![self.transcript(id)?]);
        }
        let root = match Self::across_projects(selection) {
            true => None,
            false => store.project().map(|p| p.root.clone()),
        };
        if root.is_none() && selection.since.is_none() {
            return Err(DistillError::NoSessions {
                what: "this folder (no project here): pass --session ID or --since DATE".into(),
            }
            .into());
        }
        let since = selection.since.map(|d| d.format("%Y-%m-%d").to_string());
        let wanted = |m: &SessionMeta| {
            let in_project = match (&root, &m.cwd) {
                (Some(root), Some(cwd)) => Path::new(cwd).starts_with(root),
                (Some(_), None) => false,
                (None, _) => true,
            };
            let recent = match (&since, &m.last_ts) {
                (Some(since), Some(last)) => last.as_str() >= since.as_str(),
                (Some(_), None) => false,
                (None, _) => true,
            };
            in_project && recent
        };
        let mut metas: Vec<SessionMeta> = self
            .sessions(None, SESSION_SCAN)?
            .into_iter()
            .filter(wanted)
            .collect();
        if metas.is_empty() {
            let what = match (&root, &since) {
                (Some(r), Some(s)) => format!("{} since {s}", r.display()),
                (Some(r), None) => r.display().to_string(),
                (None, Some(s)) => format!("since {s}"),
                (None, None) => "the selection".into(),
            };
            return Err(DistillError::NoSessions { what }.into());
        }
        // Oldest first: a budget-bounded run leaves the newest for later, as they still grow.
        metas.reverse();
        metas
            .iter()
            .map(|m| self.transcript(&m.session_id))
            .collect()
    }

    /// The store a transcript's proposals belong to (see `place_of_session`).
    fn store_of_transcript(&self, t: &Transcript) -> Store {
        match t.meta.cwd.as_deref().map(Path::new) {
            Some(cwd) if cwd.is_dir() => self.store_at(cwd),
            _ => Store::new(self.home().clone(), None),
        }
    }

    /// `sessions` by the store each belongs to, in the order each store first appears.
    fn by_store(&self, sessions: Vec<Transcript>) -> Vec<(Store, Vec<Transcript>)> {
        let mut groups: Vec<(Store, Vec<Transcript>)> = Vec::new();
        for t in sessions {
            let store = self.store_of_transcript(&t);
            let slug = store.project().map(|p| p.slug.clone());
            match groups
                .iter_mut()
                .find(|(s, _)| s.project().map(|p| &p.slug) == slug.as_ref())
            {
                Some((_, ts)) => ts.push(t),
                None => groups.push((store, vec![t])),
            }
        }
        groups
    }

    /// A distill run over `selection` for `store`'s view with `runner` (the real one is
    /// `distill_with_agent`); a dry run counts calls and tokens and calls nothing.
    pub fn distill_with(
        &self,
        place: &Place,
        selection: &Selection,
        agent: Option<DistillAgent>,
        dry_run: bool,
        now: DateTime<Utc>,
        runner: &dyn AgentRunner,
    ) -> Result<DistillReport, WorkspaceError> {
        let store = place.store();
        let config = self.config()?.distill;
        if !config.enabled {
            return Err(DistillError::Disabled.into());
        }
        let agent = agent.unwrap_or(config.agent);
        let extra_args = self.child_args(agent);
        let inbox = Inbox::new(self.home());
        let run = |store: &Store, sessions: &[Transcript], config: &DistillConfig| {
            let key = store
                .project()
                .map(|p| p.slug.clone())
                .unwrap_or_else(|| "user".into());
            let _running = if dry_run {
                None
            } else {
                Some(inbox.run_lock(&key)?)
            };
            let setup = distill::RunSetup {
                config,
                agent,
                extra_args: extra_args.clone(),
                store,
                inbox: &inbox,
                dry_run,
                now,
            };
            Ok::<_, WorkspaceError>(distill::distill(&setup, sessions, runner)?)
        };
        if !Self::across_projects(selection) {
            let sessions = self.selected(store, selection)?;
            return run(store, &sessions, &config);
        }
        // Sessions of several projects: each with its own project's memories and inbox
        // entries (as `--session` does), one budget for them all.
        let mut report: Option<DistillReport> = None;
        for (store, sessions) in self.by_store(self.selected(store, selection)?) {
            let mut left = config.clone();
            if let Some(r) = &report {
                left.max_calls = left.max_calls.saturating_sub(r.calls.len());
                left.max_tokens = left.max_tokens.saturating_sub(r.estimated_tokens);
            }
            let part = run(&store, &sessions, &left)?;
            match &mut report {
                None => report = Some(part),
                Some(r) => {
                    r.calls.extend(part.calls);
                    r.estimated_tokens += part.estimated_tokens;
                    r.unchanged.extend(part.unchanged);
                    r.over_budget.extend(part.over_budget);
                    r.proposals.extend(part.proposals);
                    r.refused.extend(part.refused);
                }
            }
        }
        Ok(report.expect("a selection holds at least one session"))
    }

    /// `distill_with` the person's own agent CLI as a child process.
    pub fn distill(
        &self,
        place: &Place,
        selection: &Selection,
        agent: Option<DistillAgent>,
        dry_run: bool,
        now: DateTime<Utc>,
    ) -> Result<DistillReport, WorkspaceError> {
        self.distill_stoppable(
            place,
            selection,
            agent,
            dry_run,
            now,
            &StopHandle::default(),
        )
    }

    /// `distill`, with a handle a front end's signal handler can stop it with: the running
    /// agent's process group is killed and the run ends with `stopped`.
    pub fn distill_stoppable(
        &self,
        place: &Place,
        selection: &Selection,
        agent: Option<DistillAgent>,
        dry_run: bool,
        now: DateTime<Utc>,
        stop: &StopHandle,
    ) -> Result<DistillReport, WorkspaceError> {
        let config = self.config()?.distill;
        if config.enabled {
            // Checked before the dry run: an offer to run what cannot start is no offer.
            self.agent_program(agent.unwrap_or(config.agent), &config)?;
        }
        let runner = distill::ChildRunner { stop: stop.clone() };
        self.distill_with(place, selection, agent, dry_run, now, &runner)
    }

    /// Where the agent's configured command is found (a path as given, a bare name in `PATH` or
    /// where the agents' installers put it); `AgentNotFound` says what is missing and the fix.
    pub fn agent_program(
        &self,
        agent: DistillAgent,
        config: &DistillConfig,
    ) -> Result<std::path::PathBuf, WorkspaceError> {
        let (command, name) = match agent {
            DistillAgent::Claude => (&config.claude_command, "Claude Code"),
            DistillAgent::Codex => (&config.codex_command, "Codex"),
        };
        let program = distill::child::program_of(command).unwrap_or_default();
        let env = self.agent_env().unwrap_or_else(|_| {
            ambry_compose::agents::AgentEnv::new(Default::default(), None, None)
                .with_search_path(self.env.path.as_deref())
        });
        env.find_program(&program).ok_or_else(|| {
            DistillError::AgentNotFound {
                program: if program.is_empty() {
                    command.clone()
                } else {
                    program
                },
                agent: name,
                key: distill::child::config_key(agent),
            }
            .into()
        })
    }

    /// The pending proposals of `store`'s view: user-scope ones and its project's.
    pub fn proposals(&self, place: &Place) -> Result<Vec<Proposal>, WorkspaceError> {
        let store = place.store();
        let slug = store.project().map(|p| p.slug.as_str());
        Ok(Inbox::new(self.home())
            .proposals()?
            .into_iter()
            .filter(|p| match &p.project {
                None => true,
                Some(project) => Some(project.slug.as_str()) == slug,
            })
            .collect())
    }

    /// Accepts proposal `id` into `store` (with the person's `edits`), with its vector.
    pub fn accept_proposal(
        &self,
        place: &Place,
        id: &str,
        edits: &Edits,
        now: DateTime<Utc>,
    ) -> Result<SavedWithVector, WorkspaceError> {
        let store = place.store();
        let models = self.model_paths(&self.config()?);
        let outcome = distill::accept(&Inbox::new(self.home()), store, id, edits, now)?;
        self.memories_written();
        Ok(embed::with_vector(outcome, &models))
    }

    /// Rejects proposal `id`: it leaves the inbox; no memory is touched.
    pub fn reject_proposal(
        &self,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<Proposal, WorkspaceError> {
        Ok(distill::reject(&Inbox::new(self.home()), id, now)?)
    }
}
