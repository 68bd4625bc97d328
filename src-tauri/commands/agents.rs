//! Agents in Settings and on the first-run screen: each agent's connection, and Connect /
//! Disconnect with the change shown first (a dry run) and then applied.
//!
//! Thin: core plans and applies (`ambry_core::agents`) and knows where the agents' files and
//! transcripts are (the workspace's launch environment); this only names which `ambry` binary they should run
//! (the one installed beside the app, else `ambry` on PATH).

use ambry_core::AgentStatus;
use ambry_core::FrontEndCode;
use ambry_core::{Action, Agent, ConnectOptions, ConnectReport};
use tauri::AppHandle;

use crate::ipc_error::{front_end, IpcResult};
use crate::state::off_main;

/// `ambry` beside the app's own executable (how the package installs both), else on PATH.
fn ambry_program() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("ambry")))
        .filter(|p| p.is_file())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "ambry".into())
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
    off_main(app, |ws| ws.agent_statuses().map_err(Into::into)).await
}

/// Plans (`dry_run`) or applies connect/disconnect for one agent; the report carries the
/// per-file summary and diff the confirm dialog shows, and Codex's trust verdict. `trust`
/// (Codex) also writes the trust entries Codex's own review writes, shown in that diff.
#[tauri::command]
pub async fn change_agent_connection(
    app: AppHandle,
    agent: String,
    connect: bool,
    dry_run: bool,
    trust: Option<bool>,
) -> IpcResult<ConnectReport> {
    let agent = parse_agent(&agent)?;
    let action = if connect {
        Action::Connect
    } else {
        Action::Disconnect
    };
    let options = ConnectOptions {
        trust: trust.unwrap_or(false),
    };
    off_main(app, move |ws| {
        ws.connect_agent(
            agent,
            action,
            ambry_program(),
            options,
            dry_run,
            chrono::Utc::now(),
        )
        .map_err(Into::into)
    })
    .await
}
