//! `engram sessions …` and `engram recall`.

use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Subcommand)]
pub enum SessionsCommand {
    /// Index transcripts once
    Index,
}

#[derive(Debug, clap::Args)]
pub struct RecallArgs {
    /// What to look for
    pub query: String,
}

pub fn run(_ctx: &Context, _cmd: SessionsCommand) -> Result<()> {
    anyhow::bail!("`engram sessions` is not built yet")
}

pub fn recall(_ctx: &Context, _args: RecallArgs) -> Result<()> {
    anyhow::bail!("`engram recall` is not built yet")
}
