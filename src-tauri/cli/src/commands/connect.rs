//! `ambry connect claude|codex` and `ambry disconnect claude|codex` (DESIGN §13).
//!
//! Thin: names the binary agents should run (this one), then prints what the workspace planned
//! and applied (the home rides along as `--home` when it is not the default). `--dry-run`
//! prints the change and writes nothing; `--trust` (Codex) also writes the trust entries
//! Codex's own `/hooks` review writes, shown in the diff.

use ambry_core::{Action, Agent, ConnectOptions};
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
    /// Codex: also trust Ambry's hooks in Codex's config.toml, as Codex's /hooks review does
    #[arg(long)]
    pub trust: bool,
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

/// The running ambry binary's absolute path, so agents find it without PATH.
pub fn ambry_program() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "ambry".into())
}

pub fn run(ctx: &Context, args: ConnectArgs, action: Action) -> Result<()> {
    let agent = Agent::from(args.agent);
    let options = ConnectOptions { trust: args.trust };
    let report = ctx.workspace.connect_agent(
        agent,
        action,
        ambry_program(),
        options,
        args.dry_run,
        ctx.now(),
    )?;
    // Connecting inside a repository that holds team memory is the person saying they work
    // in it: its team memory is trusted (DESIGN §15), and said so.
    let trusted_team = match (action, args.dry_run) {
        (Action::Connect, false) => ctx
            .workspace
            .team_trust(&ctx.cwd)
            .ok()
            .filter(|t| t.memories > 0 && !t.trusted)
            .and_then(|_| ctx.workspace.set_team_trust(&ctx.cwd, true, ctx.now()).ok()),
        _ => None,
    };
    if ctx.json {
        return ctx.print_json(&report);
    }
    print!("{}", report.describe());
    if let Some(team) = trusted_team {
        println!(
            "trusted the team memory of {} ({} memories in {}); `ambry trust --revoke` undoes it",
            team.root.display(),
            team.memories,
            team.dir.display()
        );
    }
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
