//! `engram init`.

use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct InitArgs {}

pub fn run(_ctx: &Context, _args: InitArgs) -> Result<()> {
    anyhow::bail!("`engram init` is not built yet")
}
