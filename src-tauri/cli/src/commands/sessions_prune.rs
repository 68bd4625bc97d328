//! `ambry sessions prune --source-removed [--older-than DAYS] [--dry-run]`: drops sessions the
//! vault kept after their transcript file was deleted (DESIGN §7).

use crate::context::Context;
use anyhow::Result;

#[derive(Debug, clap::Args)]
pub struct PruneArgs {
    /// Remove sessions whose transcript file was deleted (the only kind prune removes)
    #[arg(long, required = true)]
    pub source_removed: bool,
    /// Only those whose file disappeared at least DAYS ago
    #[arg(long, value_name = "DAYS")]
    pub older_than: Option<u32>,
    /// Show what would go without removing it
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(ctx: &Context, args: PruneArgs) -> Result<()> {
    let report = ctx
        .workspace
        .prune_vaulted_sessions(args.older_than, ctx.now(), args.dry_run)?;
    if ctx.json {
        return ctx.print_json(&report);
    }
    for v in &report.removed {
        println!("{}  {}", v.session_id, v.path.display());
    }
    let verb = if args.dry_run {
        "would remove"
    } else {
        "removed"
    };
    println!(
        "{verb} {} session file(s) whose transcript was deleted",
        report.removed.len()
    );
    Ok(())
}
