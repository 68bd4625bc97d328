//! The agents Ambry serves, through the workspace: where their configuration lives (from the
//! launch environment, by the same rule as everything else), and bringing in what Claude Code
//! already remembers.
//!
//! Owns: building `AgentEnv` from the launch environment, the command agents run (this
//! workspace's home pinned into it when it is not the default, so hook and MCP server use one
//! store), connect/disconnect through one call for the CLI and the app (with the connect record
//! kept in the home), and telling the caches when an import wrote memories.
//! Deliberately does not: edit agents' files or decide how a topic file maps to a memory; the
//! `agents` and `import` modules do.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Workspace, WorkspaceError};
use crate::import::{self, ImportReport};
use ambry_compose::agents::{
    self, Action, Agent, AgentConnection, AgentEnv, AmbryCommand, ConnectOptions, ConnectReport,
};
use ambry_sessions::sessions::SourceKind;

/// One agent as Settings and the first-run screen show it.
#[derive(Debug, Serialize)]
pub struct AgentStatus {
    #[serde(flatten)]
    pub connection: AgentConnection,
    pub connected: bool,
    /// Where this agent's transcripts are read from when past sessions are indexed: the same
    /// root the session index uses.
    pub transcripts_dir: Option<PathBuf>,
}

impl Workspace {
    /// Where the agents keep their configuration (`~/.claude`, `CLAUDE_CONFIG_DIR`, `~/.codex`,
    /// `CODEX_HOME`); `NoUserHome` when the person's home directory is unknown.
    pub fn agent_env(&self) -> Result<AgentEnv, WorkspaceError> {
        let home = self
            .env
            .user_home
            .clone()
            .ok_or(WorkspaceError::NoUserHome)?;
        Ok(AgentEnv::new(
            home,
            self.env.claude_config_dir.clone(),
            self.env.codex_home.clone(),
        )
        .with_search_path(self.env.path.as_deref()))
    }

    /// The command agents should run: `program` (the ambry binary), with this workspace's home
    /// as `--home` when it is not the default `~/.ambry` (absolute, so it means the same from
    /// any directory an agent starts in).
    pub fn ambry_command(&self, program: impl Into<String>) -> AmbryCommand {
        let root = self.home().root();
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        let default = self.env.user_home.as_ref().map(|h| h.join(".ambry"));
        let pinned = (default.as_deref() != Some(root.as_path())).then_some(root);
        AmbryCommand::new(program).with_home(pinned)
    }

    /// Plans and (unless `dry_run`) applies `ambry connect` / `ambry disconnect` for `agent`.
    /// `NoUserHome` when the person's home directory is unknown.
    pub fn connect_agent(
        &self,
        agent: Agent,
        action: Action,
        program: impl Into<String>,
        options: ConnectOptions,
        dry_run: bool,
        now: DateTime<Utc>,
    ) -> Result<ConnectReport, WorkspaceError> {
        // Only Codex asks the person to trust a hook; there is nothing to trust on disconnect.
        if options.trust && (agent != Agent::Codex || action != Action::Connect) {
            return Err(ambry_store::error::InvalidRequest(
                "trust is for connecting Codex (Claude Code asks no trust for hooks)".into(),
            )
            .into());
        }
        let env = self.agent_env()?;
        let record_path = self.home().root().join(agents::RECORD_FILE);
        let record = agents::ConnectRecord::read(&record_path);
        let command = self.ambry_command(program);
        Ok(
            agents::plan(agent, action, &env, &command, options, &record)
                .and_then(|plan| agents::apply(plan, dry_run, now, &record_path))?,
        )
    }

    /// Every agent's connection and transcript folder; `NoUserHome` when the person's home directory
    /// is unknown.
    pub fn agent_statuses(&self) -> Result<Vec<AgentStatus>, WorkspaceError> {
        let env = self.agent_env()?;
        let roots = self.session_roots();
        Ok(Agent::ALL
            .into_iter()
            .map(|agent| {
                let connection = agents::connection(agent, &env);
                let source = match agent {
                    Agent::Claude => SourceKind::Claude,
                    Agent::Codex => SourceKind::Codex,
                };
                AgentStatus {
                    connected: connection.connected(),
                    connection,
                    transcripts_dir: roots.root(source).map(Path::to_path_buf),
                }
            })
            .collect())
    }

    /// Claude Code's auto-memory into each repository's project scope (`ambry import claude`).
    /// `NoUserHome` when the person's home directory is unknown.
    pub fn import_claude(
        &self,
        dry_run: bool,
        now: DateTime<Utc>,
    ) -> Result<(ImportReport, std::path::PathBuf), WorkspaceError> {
        let projects = self.agent_env()?.claude_projects();
        let report = import::import_claude(&self.home, &projects, Path::new("/"), dry_run, now);
        if !dry_run {
            self.memories_written();
            self.projects_written();
        }
        Ok((report?, projects))
    }
}
