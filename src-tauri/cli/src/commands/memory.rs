//! `engram memory …`.

use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Subcommand)]
pub enum MemoryCommand {
    /// List memories
    List,
    /// Bring every memory's embedding sidecar (.vec) up to date (incremental)
    Reindex(super::reindex::ReindexArgs),
}

pub fn run(ctx: &Context, cmd: MemoryCommand) -> Result<()> {
    match cmd {
        MemoryCommand::Reindex(args) => super::reindex::run(ctx, args),
        _ => anyhow::bail!("`engram memory` is not built yet"),
    }
}
