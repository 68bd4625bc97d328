//! `ambry memory rename OLD NEW [--scope S]`: one operation that moves the memory, its archived
//! history, the `[[links]]` and the retrieval-test cases that name it (DESIGN §14), and says
//! where the history of an earlier, forgotten memory of the new name was set aside.

use anyhow::Result;

use crate::context::Context;
use crate::scope_args::ScopeArg;

#[derive(Debug, clap::Args)]
pub struct RenameArgs {
    pub old: String,
    pub new: String,
    /// The memory's scope (default: user)
    #[arg(long, value_enum, default_value = "user")]
    pub scope: ScopeArg,
}

pub fn run(ctx: &Context, args: RenameArgs) -> Result<()> {
    let scope = args.scope.into();
    let done = ctx
        .workspace
        .rename_memory(&ctx.place(), scope, &args.old, &args.new, ctx.now())?;
    if ctx.json {
        return ctx.print_json(&done);
    }
    let r = &done.renamed;
    println!(
        "renamed {scope}/{} to {} ({} archived version(s) moved with it)",
        r.old_name, r.outcome.memory.name, r.versions_moved
    );
    if let Some(earlier) = &r.earlier_history {
        println!(
            "  {} archived version(s) of an earlier, forgotten {} are kept apart as {} (`ambry memory archive list {}`)",
            earlier.versions, r.outcome.memory.name, earlier.name, earlier.name
        );
    }
    for linked in &r.relinked {
        println!("  updated links in {}/{}", linked.scope, linked.name);
    }
    for file in &r.cases_updated {
        println!("  updated retrieval cases in {}", file.display());
    }
    for note in &r.notes {
        println!("  note: {note}");
    }
    Ok(())
}
