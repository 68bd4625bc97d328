//! `ambry memory archive list|restore|prune|purge`: prior versions of memories.

use ambry_core::{Scope, ScopeFilter};
use anyhow::Result;

use crate::context::Context;
use crate::scope_args::{ScopeArg, ScopeFilterArg};

#[derive(Debug, clap::Subcommand)]
pub enum ArchiveCommand {
    /// List archived versions, newest first (all memories, or one)
    List {
        name: Option<String>,
        #[arg(long, value_enum, default_value_t)]
        scope: ScopeFilterArg,
    },
    /// Make an archived version current again (the current file is archived first)
    Restore {
        name: String,
        /// The version id shown by `archive list`
        #[arg(id = "VERSION", value_name = "VERSION")]
        version: String,
        #[arg(long, value_enum, default_value = "user")]
        scope: ScopeArg,
    },
    /// Delete one archived version for good (say, a copy holding a leaked secret; `ambry doctor` lists them)
    Purge {
        name: String,
        /// The version id shown by `archive list` or `doctor`
        #[arg(id = "VERSION", value_name = "VERSION")]
        version: String,
        #[arg(long, value_enum, default_value = "user")]
        scope: ScopeArg,
    },
    /// Remove old versions by policy ([archive] in config.toml, or the flags)
    Prune {
        /// Keep the newest N versions of each memory
        #[arg(long, value_name = "N")]
        keep: Option<usize>,
        /// Drop versions older than DAYS (0: no age limit)
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
        /// Only list what would be removed
        #[arg(long)]
        dry_run: bool,
        #[arg(long, value_enum, default_value_t)]
        scope: ScopeFilterArg,
    },
}

pub fn run(ctx: &Context, cmd: ArchiveCommand) -> Result<()> {
    match cmd {
        ArchiveCommand::List { name, scope } => list(ctx, name.as_deref(), scope.into()),
        ArchiveCommand::Restore {
            name,
            version,
            scope,
        } => restore(ctx, &name, &version, scope.into()),
        ArchiveCommand::Purge {
            name,
            version,
            scope,
        } => purge(ctx, &name, &version, scope.into()),
        ArchiveCommand::Prune {
            keep,
            older_than,
            dry_run,
            scope,
        } => prune(ctx, keep, older_than, dry_run, scope.into()),
    }
}

fn list(ctx: &Context, name: Option<&str>, filter: ScopeFilter) -> Result<()> {
    let place = ctx.place();
    if filter == ScopeFilter::Project && place.project().is_none() {
        place.dir(Scope::Project)?;
    }
    let mut versions = Vec::new();
    for scope in place.scopes(filter) {
        versions.extend(ctx.workspace.versions(&place, scope, name)?);
    }
    if ctx.json {
        return ctx.print_json(&versions);
    }
    if versions.is_empty() {
        println!("no archived versions");
        return Ok(());
    }
    for v in &versions {
        println!(
            "{:<7} {:<24} {}  {}  {} bytes",
            v.scope,
            v.name,
            v.version,
            v.archived_at.format("%Y-%m-%d %H:%M:%S UTC"),
            v.size
        );
    }
    Ok(())
}

fn restore(ctx: &Context, name: &str, version: &str, scope: Scope) -> Result<()> {
    let saved = ctx
        .workspace
        .restore(&ctx.place(), scope, name, version, ctx.now())?;
    let outcome = &saved.outcome;
    if ctx.json {
        return ctx.print_json(outcome);
    }
    match &outcome.archived {
        Some(previous) => println!(
            "restored {scope}/{name} from {version}; the version it replaced is archived at {}",
            previous.display()
        ),
        None => println!("restored {scope}/{name} from {version}"),
    }
    Ok(())
}

fn purge(ctx: &Context, name: &str, version: &str, scope: Scope) -> Result<()> {
    let path = ctx
        .workspace
        .purge_version(&ctx.place(), scope, name, version)?;
    if ctx.json {
        return ctx.print_json(&serde_json::json!({ "scope": scope, "name": name, "version": version, "removed": path }));
    }
    println!(
        "purged {scope}/{name} version {version} ({})",
        path.display()
    );
    Ok(())
}

fn prune(
    ctx: &Context,
    keep: Option<usize>,
    older_than: Option<u64>,
    dry_run: bool,
    filter: ScopeFilter,
) -> Result<()> {
    let policy = ctx.workspace.prune_policy(keep, older_than)?;
    let report = ctx
        .workspace
        .prune(&ctx.place(), filter, &policy, ctx.now(), dry_run)?;
    if ctx.json {
        return ctx.print_json(&report);
    }
    let verb = if dry_run { "would remove" } else { "removed" };
    for v in &report.removed {
        println!(
            "{verb} {}/{} {} ({})",
            v.scope,
            v.name,
            v.version,
            v.archived_at.format("%Y-%m-%d")
        );
    }
    println!(
        "{verb} {} version(s), kept {} (policy: newest {} per memory{})",
        report.removed.len(),
        report.kept,
        policy.keep_versions,
        if policy.max_age_days > 0 {
            format!(", none older than {} days", policy.max_age_days)
        } else {
            String::new()
        }
    );
    Ok(())
}
