//! `ambry memory reindex [--json]`: bring the `.vec` sidecar of every memory Ambry knows up
//! to date — the user scope, every known project and the current directory's project — exactly
//! what the app's Reindex covers.

use std::io::Write;

use ambry_core::ReindexProgress;
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ReindexArgs {}

pub fn run(ctx: &Context, _args: ReindexArgs) -> Result<()> {
    let quiet = ctx.json;
    let mut progress = |p: ReindexProgress| {
        if !quiet && p.total > 0 {
            eprint!("\rembedding {}/{}", p.done, p.total);
            if p.done == p.total {
                eprintln!();
            }
            let _ = std::io::stderr().flush();
        }
    };
    let project = ctx.project().ok();
    let report = ctx
        .workspace
        .reindex_embeddings(project.as_ref(), &mut progress)?;

    if ctx.json {
        return ctx.print_json(&report);
    }
    println!(
        "reindex ({}): {} created, {} updated, {} up to date, {} failed",
        report.model_id,
        report.created,
        report.updated,
        report.up_to_date,
        report.failed.len()
    );
    if report.model_changed() {
        println!(
            "model changed: replaced vectors from {}",
            report.previous_models.join(", ")
        );
    }
    for (path, reason) in &report.failed {
        println!("failed: {path}: {reason}");
    }
    if !report.failed.is_empty() {
        anyhow::bail!("{} memories could not be embedded", report.failed.len());
    }
    Ok(())
}
