//! `engram memory …`.

use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Subcommand)]
pub enum MemoryCommand {
    /// List memories
    List,
}

pub fn run(_ctx: &Context, _cmd: MemoryCommand) -> Result<()> {
    anyhow::bail!("`engram memory` is not built yet")
}
