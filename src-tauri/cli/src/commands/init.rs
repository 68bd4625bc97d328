//! `ambry init [user|project]`: trust-anchor skeletons that never overwrite.

use ambry_core::{AnchorOf, InitOutcome};
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Which anchor: USER.md in the Ambry home, or .ambry/AMBRY.md in the repository
    #[arg(value_enum, default_value = "user")]
    pub which: Which,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Which {
    User,
    Project,
}

pub fn run(ctx: &Context, args: InitArgs) -> Result<()> {
    let outcome: InitOutcome = match args.which {
        Which::User => ctx.workspace.init_anchor(AnchorOf::User)?,
        Which::Project => ctx
            .workspace
            .init_anchor(AnchorOf::Project(&ctx.project()?))?,
    };
    if ctx.json {
        return ctx.print_json(&outcome);
    }
    if outcome.created {
        println!("created {}", outcome.path.display());
    } else {
        println!("{} already exists; left untouched", outcome.path.display());
    }
    Ok(())
}
