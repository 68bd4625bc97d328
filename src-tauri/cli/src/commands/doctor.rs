//! `ambry doctor`: paths, configuration, memory scopes, projects, embeddings and the session
//! index. Exit 1 when any check is an error.

use ambry_core::{overall_status, Status};
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

pub fn run(ctx: &Context, _args: DoctorArgs) -> Result<()> {
    let checks = ctx.workspace.doctor(Some(&ctx.cwd));
    let status = overall_status(&checks);
    if ctx.json {
        ctx.print_json(&serde_json::json!({ "status": status, "checks": checks }))?;
    } else {
        for c in &checks {
            let mark = match c.status {
                Status::Ok => "ok  ",
                Status::Off => "off ",
                Status::Info => "info",
                Status::Warn => "warn",
                Status::Error => "FAIL",
            };
            println!("{mark}  {:<15} {}", c.area, c.detail);
        }
    }
    if status == Status::Error {
        anyhow::bail!("doctor found problems (marked FAIL above)");
    }
    Ok(())
}
