//! Agents in Settings and on the first-run screen: each agent's connection, and Connect /
//! Disconnect with the change shown first (a dry run) and then applied.
//!
//! Thin: core plans and applies (`engram_core::agents`); this resolves where the agents' files
//! are and which `engram` binary they should run (the one installed beside the app, else
//! `engram` on PATH).

use engram_core::agents::{self, Action, Agent, AgentConnection, AgentEnv, ConnectReport, EngramCommand};
use engram_core::ErrorCode;
use serde::Serialize;

use crate::ipc_error::{IpcError, IpcResult};

fn agent_env() -> IpcResult<AgentEnv> {
    let home = std::env::home_dir().ok_or_else(|| IpcError::new("no_home", "cannot find your home directory (set HOME)"))?;
    Ok(AgentEnv::new(
        home,
        std::env::var_os("CLAUDE_CONFIG_DIR").map(Into::into),
        std::env::var_os("CODEX_HOME").map(Into::into),
    ))
}

/// `engram` beside the app's own executable (how the package installs both), else on PATH.
fn engram_command() -> EngramCommand {
    let beside = std::env::current_exe().ok().and_then(|exe| exe.parent().map(|d| d.join("engram"))).filter(|p| p.is_file());
    EngramCommand::new(beside.map(|p| p.display().to_string()).unwrap_or_else(|| "engram".into()))
}

fn parse_agent(agent: &str) -> IpcResult<Agent> {
    Agent::parse(agent).ok_or_else(|| IpcError::new("unknown_agent", format!("unknown agent `{agent}`: use claude or codex")))
}

fn ipc(e: agents::AgentError) -> IpcError {
    IpcError::new(e.code(), e.to_string())
}

#[derive(Debug, Serialize)]
pub struct AgentView {
    #[serde(flatten)]
    pub connection: AgentConnection,
    pub connected: bool,
    /// Where this agent's transcripts are read from when past sessions are indexed.
    pub transcripts_dir: String,
}

#[tauri::command]
pub async fn agent_connections() -> IpcResult<Vec<AgentView>> {
    let env = agent_env()?;
    Ok(Agent::ALL
        .into_iter()
        .map(|a| {
            let connection = agents::connection(a, &env);
            let transcripts_dir = match a {
                Agent::Claude => env.claude_projects(),
                Agent::Codex => env.codex_dir().join("sessions"),
            };
            AgentView { connected: connection.connected(), connection, transcripts_dir: transcripts_dir.display().to_string() }
        })
        .collect())
}

/// Plans (`dry_run`) or applies connect/disconnect for one agent; the report carries the
/// per-file summary and diff the confirm dialog shows.
#[tauri::command]
pub async fn change_agent_connection(agent: String, connect: bool, dry_run: bool) -> IpcResult<ConnectReport> {
    let agent = parse_agent(&agent)?;
    let action = if connect { Action::Connect } else { Action::Disconnect };
    let env = agent_env()?;
    tauri::async_runtime::spawn_blocking(move || {
        let edits = agents::plan(agent, action, &env, &engram_command()).map_err(ipc)?;
        agents::apply(agent, action, edits, dry_run, chrono::Utc::now()).map_err(ipc)
    })
    .await
    .map_err(|e| IpcError::new("internal", format!("the task stopped unexpectedly: {e}")))?
}
