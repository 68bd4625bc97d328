//! `engram memory archive list|restore|prune`.

use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Subcommand)]
pub enum ArchiveCommand {
    /// List archived versions
    List,
}

pub fn run(_ctx: &Context, _cmd: ArchiveCommand) -> Result<()> {
    anyhow::bail!("`engram memory archive` is not built yet")
}
