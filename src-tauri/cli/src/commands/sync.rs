//! `ambry sync init REMOTE | sync [--dry-run] | sync status | sync dismiss ID | sync use-other
//! ID`: personal sync on git (DESIGN §15).
//!
//! Thin: calls the workspace and prints its report; `--json` prints the report (or status) as
//! is. A failed sync exits 1 with the error (and `sync status` keeps it).

use ambry_core::{Refused, Side, SyncConflict, SyncReport, SyncStatus};
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct SyncArgs {
    #[command(subcommand)]
    pub action: Option<SyncAction>,
    /// Say what a sync would send and receive without changing anything
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum SyncAction {
    /// Set up sync with a git remote you own: an empty one, or one another machine already syncs to
    Init {
        /// A git remote (URL, `host:path`, or a local path)
        remote: String,
    },
    /// Last sync, ahead/behind, the last error, refused files and conflicts waiting
    Status,
    /// Settle a "changed on two machines" conflict: it leaves the review inbox, files stay as they are
    Dismiss { id: String },
    /// Settle a "changed on two machines" conflict with the other version: it replaces the memory (the current one is archived)
    UseOther { id: String },
}

pub fn run(ctx: &Context, args: SyncArgs) -> Result<()> {
    let ws = &ctx.workspace;
    match args.action {
        None => {
            let report = ws.sync_now(ctx.now(), args.dry_run)?;
            print_report(ctx, &report)
        }
        Some(SyncAction::Init { remote }) => {
            let report = ws.sync_init(&remote, &ctx.cwd, ctx.now())?;
            print_report(ctx, &report)
        }
        Some(SyncAction::Status) => print_status(ctx, &ws.sync_status()?),
        Some(SyncAction::Dismiss { id }) => {
            if !ws.sync_dismiss(&id)? {
                anyhow::bail!("no conflict `{id}` is waiting (see ambry sync status)");
            }
            if ctx.json {
                return ctx.print_json(&serde_json::json!({ "dismissed": id }));
            }
            println!(
                "Dismissed conflict {id}; the memory and its archived versions stay as they are."
            );
            Ok(())
        }
        Some(SyncAction::UseOther { id }) => {
            let Some(settled) = ws.sync_use_other(&id, ctx.now())? else {
                anyhow::bail!("no conflict `{id}` is waiting (see ambry sync status)");
            };
            if ctx.json {
                return ctx.print_json(&settled);
            }
            println!(
                "{} now holds the other machine's version (the one it replaces is archived); the next sync sends it.",
                settled.path
            );
            Ok(())
        }
    }
}

fn print_report(ctx: &Context, report: &SyncReport) -> Result<()> {
    if ctx.json {
        return ctx.print_json(report);
    }
    let (send, receive) = if report.dry_run {
        ("would send", "would receive")
    } else {
        ("sent", "received")
    };
    for path in &report.received {
        println!("{receive:<13} {path}");
    }
    for path in &report.sent {
        println!("{send:<13} {path}");
    }
    for c in &report.conflicts {
        print_conflict(c);
    }
    print_refusals("refused", "from the remote", &report.refused);
    print_refusals("held back", "not sent", &report.withheld);
    for path in &report.changed_here {
        println!("changed here  {path} (changed during the sync; it goes out next time)");
    }
    let what = if report.dry_run {
        "dry run:"
    } else {
        "synced with"
    };
    println!(
        "{what} {} — {} {send}, {} {receive}, {} conflict(s), {} refused",
        report.remote,
        report.sent.len(),
        report.received.len(),
        report.conflicts.len(),
        report.refused.len()
    );
    Ok(())
}

fn print_status(ctx: &Context, status: &SyncStatus) -> Result<()> {
    if ctx.json {
        return ctx.print_json(status);
    }
    let state = &status.state;
    let Some(remote) = state.remote.as_deref() else {
        println!("Sync is not set up. Run `ambry sync init REMOTE` with a git remote you own.");
        return Ok(());
    };
    println!("remote        {remote}");
    println!(
        "last sync     {}",
        state.last_sync.map_or("never".into(), ambry_core::rfc3339)
    );
    println!("ahead/behind  {}/{}", state.ahead, state.behind);
    if let Some(unsent) = status.unsent {
        println!("not sent yet  {unsent} file(s) changed here since the last sync");
    }
    match &state.last_error {
        Some(e) => println!(
            "last error    {} at {}: {}",
            e.code,
            ambry_core::rfc3339(e.at),
            e.message
        ),
        None => println!("last error    none"),
    }
    print_refusals("refused", "from the remote", &state.refused);
    print_refusals("held back", "not sent", &state.withheld);
    for c in &status.conflicts {
        print_conflict(c);
    }
    Ok(())
}

fn print_refusals(label: &str, what: &str, list: &[Refused]) {
    for r in list {
        println!("{label:<13} {} ({what}): {}", r.path, r.reason);
    }
}

fn print_conflict(c: &SyncConflict) {
    let side = |s: &Side| {
        let machine = if s.here {
            "this machine"
        } else {
            "another machine"
        };
        let when = s.updated.map_or("no date".into(), ambry_core::rfc3339);
        if s.deleted {
            format!("deleted on {machine}")
        } else {
            format!("{machine}, updated {when}")
        }
    };
    println!(
        "conflict      {} [{}] changed on two machines: kept {}; the other ({}) is archived — ambry memory review; keep it: ambry sync dismiss {}, or the other: ambry sync use-other {}",
        c.path,
        c.id,
        side(&c.kept),
        side(&c.other),
        c.id,
        c.id
    );
}
