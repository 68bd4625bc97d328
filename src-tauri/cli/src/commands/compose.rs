//! `engram compose`.

use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ComposeArgs {}

pub fn run(_ctx: &Context, _args: ComposeArgs) -> Result<()> {
    anyhow::bail!("`engram compose` is not built yet")
}
