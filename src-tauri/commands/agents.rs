//! Agents in Settings and on the first-run screen: each agent's connection, and Connect /
//! Disconnect with the change shown first (a dry run) and then applied.
//!
//! Thin: core plans and applies (`ambry_core::agents`) and knows where the agents' files and
//! transcripts are (the workspace's launch environment); this only names which `ambry` binary they should run
//! (the one installed beside the app, else `ambry` on PATH).

use ambry_core::agents::{self, Action, Agent, AgentEnv, AmbryCommand, ConnectReport};
use ambry_core::error::FrontEndCode;
use ambry_core::workspace::AgentStatus;
use ambry_core::Workspace;
use tauri::AppHandle;

use crate::ipc_error::{front_end, IpcResult};
use crate::state::off_main;

fn agent_env(ws: &Workspace) -> IpcResult<AgentEnv> {
    ws.agent_env().ok_or_else(|| {
        front_end(
            FrontEndCode::NoHome,
            "cannot find your home directory (set HOME)",
        )
    })
}

/// `ambry` beside the app's own executable (how the package installs both), else on PATH.
fn ambry_command() -> AmbryCommand {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("ambry")))
        .filter(|p| p.is_file());
    AmbryCommand::new(
        beside
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "ambry".into()),
    )
}

fn parse_agent(agent: &str) -> IpcResult<Agent> {
    Agent::parse(agent).ok_or_else(|| {
        front_end(
            FrontEndCode::Usage,
            format!("unknown agent `{agent}`: use claude or codex"),
        )
    })
}

#[tauri::command]
pub async fn agent_connections(app: AppHandle) -> IpcResult<Vec<AgentStatus>> {
    off_main(app, |ws| {
        ws.agent_statuses().ok_or_else(|| {
            front_end(
                FrontEndCode::NoHome,
                "cannot find your home directory (set HOME)",
            )
        })
    })
    .await
}

/// Plans (`dry_run`) or applies connect/disconnect for one agent; the report carries the
/// per-file summary and diff the confirm dialog shows.
#[tauri::command]
pub async fn change_agent_connection(
    app: AppHandle,
    agent: String,
    connect: bool,
    dry_run: bool,
) -> IpcResult<ConnectReport> {
    let agent = parse_agent(&agent)?;
    let action = if connect {
        Action::Connect
    } else {
        Action::Disconnect
    };
    off_main(app, move |ws| {
        let edits = agents::plan(agent, action, &agent_env(ws)?, &ambry_command())?;
        Ok(agents::apply(
            agent,
            action,
            edits,
            dry_run,
            chrono::Utc::now(),
        )?)
    })
    .await
}
