//! `ambry connect claude|codex` and `ambry disconnect claude|codex` (DESIGN §13).
//!
//! Thin: resolves where the agent's files are and which binary agents should run, then prints
//! what core planned and applied. `--dry-run` prints the change and writes nothing.

use ambry_core::agents::{self, Action, Agent, AgentEnv, AmbryCommand};
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ConnectArgs {
    /// The agent: claude (Claude Code) or codex
    #[arg(value_enum)]
    pub agent: AgentArg,
    /// Print the change without writing anything
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AgentArg {
    Claude,
    Codex,
}

impl From<AgentArg> for Agent {
    fn from(a: AgentArg) -> Agent {
        match a {
            AgentArg::Claude => Agent::Claude,
            AgentArg::Codex => Agent::Codex,
        }
    }
}

/// The agents' locations, as the workspace resolved them from the launch environment.
pub fn agent_env(ctx: &Context) -> Result<AgentEnv> {
    ctx.workspace
        .agent_env()
        .ok_or_else(|| anyhow::anyhow!("cannot find your home directory (set HOME)"))
}

/// The running ambry binary's absolute path, so agents find it without PATH.
pub fn ambry_command() -> AmbryCommand {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    AmbryCommand::new(
        exe.map(|p| p.display().to_string())
            .unwrap_or_else(|| "ambry".into()),
    )
}

pub fn run(ctx: &Context, args: ConnectArgs, action: Action) -> Result<()> {
    let agent = Agent::from(args.agent);
    let env = agent_env(ctx)?;
    let edits = agents::plan(agent, action, &env, &ambry_command())?;
    let report = agents::apply(agent, action, edits, args.dry_run, ctx.now())?;
    if ctx.json {
        return ctx.print_json(&report);
    }
    print!("{}", report.describe());
    if report.changed {
        let verb = if action == Action::Connect {
            "connected"
        } else {
            "disconnected"
        };
        if args.dry_run {
            println!("(dry run: nothing written)");
        } else {
            println!(
                "{} {verb}; restart running sessions to pick it up.",
                agent.display_name()
            );
        }
    }
    Ok(())
}
