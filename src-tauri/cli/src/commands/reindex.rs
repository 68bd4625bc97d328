//! `engram memory reindex [--json]`: bring every memory's `.vec` sidecar up to date.

use std::io::Write;

use anyhow::{Context as _, Result};
use engram_core::embed::{reindex_files, shared_embedder, ReindexProgress};
use engram_core::memory::ScopeFilter;

use super::embedding::model_paths;
use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ReindexArgs {}

pub fn run(ctx: &Context, _args: ReindexArgs) -> Result<()> {
    let paths = model_paths(ctx)?;
    let embedder = shared_embedder(&paths)?;
    let mut embedder = embedder
        .lock()
        .map_err(|_| anyhow::anyhow!("embedding model unavailable after a crash"))?;
    let files = ctx
        .store()
        .list(ScopeFilter::All)
        .context("cannot list memories")?;

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
    let report = reindex_files(files, &mut *embedder, &mut progress)?;

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
