//! `engram doctor`.

use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

pub fn run(_ctx: &Context, _args: DoctorArgs) -> Result<()> {
    anyhow::bail!("`engram doctor` is not built yet")
}
