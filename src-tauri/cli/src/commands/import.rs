//! `ambry import claude [--dry-run]`: Claude Code's auto-memory into project scopes (DESIGN §13).
//!
//! Thin: resolves Claude Code's directory (honouring `CLAUDE_CONFIG_DIR`), calls core, prints
//! each file's outcome and the directories that resolved to nothing.

use ambry_core::ImportOutcome;
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Subcommand)]
pub enum ImportCommand {
    /// Claude Code's auto-memory (<claude dir>/projects/*/memory/*.md) into each repository's project scope
    Claude(ImportArgs),
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Show what would be imported without writing anything
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(ctx: &Context, cmd: ImportCommand) -> Result<()> {
    let ImportCommand::Claude(args) = cmd;
    let (report, projects) = ctx.workspace.import_claude(args.dry_run, ctx.now())?;
    if ctx.json {
        return ctx.print_json(&report);
    }
    if report.items.is_empty() && report.unresolved.is_empty() {
        println!("No Claude Code memory files under {}.", projects.display());
        return Ok(());
    }
    for item in &report.items {
        let project = item.project.as_deref().unwrap_or("-");
        let what = match &item.outcome {
            ImportOutcome::Created => "created".to_string(),
            ImportOutcome::Updated => "updated".to_string(),
            ImportOutcome::Unchanged => "unchanged".to_string(),
            ImportOutcome::Skipped { reason } => format!("skipped: {reason}"),
        };
        println!(
            "{what:<10} {project}/{}  ← {}",
            item.name,
            item.source.display()
        );
    }
    for u in &report.unresolved {
        println!(
            "unresolved {} ({} file(s)): no existing directory matches this name; not imported",
            u.dir.display(),
            u.topic_files
        );
    }
    let created = report.count(|o| *o == ImportOutcome::Created);
    let updated = report.count(|o| *o == ImportOutcome::Updated);
    let skipped = report.count(|o| matches!(o, ImportOutcome::Skipped { .. }));
    let prefix = if report.dry_run {
        "dry run: would import"
    } else {
        "imported"
    };
    println!(
        "{prefix} {created} new, {updated} updated; {skipped} skipped; {} unresolved director(ies)",
        report.unresolved.len()
    );
    Ok(())
}
