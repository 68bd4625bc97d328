//! `ambry trust [--revoke]` and `ambry memory promote|demote NAME` (DESIGN §15): the team memory
//! of the repository in the working directory — trusted by this person before agents are given
//! it — and moving a memory between the person's project scope and the team's.

use ambry_core::Scope;
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// Stop trusting it: agents are no longer given this repository's team memory
    #[arg(long)]
    pub revoke: bool,
    /// Only say whether it is trusted
    #[arg(long, conflicts_with = "revoke")]
    pub status: bool,
}

pub fn run(ctx: &Context, args: TrustArgs) -> Result<()> {
    let trust = if args.status {
        ctx.workspace.team_trust(&ctx.cwd)?
    } else {
        ctx.workspace
            .set_team_trust(&ctx.cwd, !args.revoke, ctx.now())?
    };
    if ctx.json {
        return ctx.print_json(&trust);
    }
    let state = if trust.trusted {
        "trusted: agents are given its team memory"
    } else {
        "not trusted: agents are not given its team memory"
    };
    println!(
        "{} ({}): {state}; {} team memor{} in {}",
        trust.root.display(),
        trust.project,
        trust.memories,
        if trust.memories == 1 { "y" } else { "ies" },
        trust.dir.display()
    );
    Ok(())
}

/// `memory promote` (to `Scope::Team`) and `memory demote` (to `Scope::Project`).
pub fn moved(ctx: &Context, name: &str, to: Scope) -> Result<()> {
    let saved = ctx
        .workspace
        .move_to_scope(&ctx.place(), name, to, ctx.now())?;
    let memory = &saved.outcome.memory;
    if ctx.json {
        return ctx.print_json(&serde_json::json!({
            "scope": memory.scope,
            "name": memory.name,
            "path": memory.path,
        }));
    }
    println!("moved {name} to the {to} scope: {}", memory.path.display());
    if to == Scope::Team {
        println!(
            "commit it with your code to share it (Ambry never commits): git add {}",
            memory.path.display()
        );
    }
    Ok(())
}
