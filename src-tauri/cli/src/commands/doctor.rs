//! `engram doctor`: paths, configuration, memory scopes, projects, embeddings and the session
//! index. Exit 1 when any check is an error.

use anyhow::Result;
use engram_core::doctor::{self, Check, Status};

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

pub fn run(ctx: &Context, _args: DoctorArgs) -> Result<()> {
    let config = ctx.config().map(|c| c.clone()).map_err(|e| format!("{e:#}"));
    let store = ctx.store();
    let mut checks: Vec<Check> = doctor::home_checks(&ctx.home, &config);
    checks.extend(doctor::store_checks(&store));
    checks.extend(doctor::project_checks(&ctx.home));
    if let Ok(config) = &config {
        let paths = super::embedding::model_paths(ctx)?;
        checks.extend(engram_core::embed::embed_checks(&paths, config.retrieval.strategy).to_checks());
    }
    checks.extend(engram_core::sessions::session_checks(&ctx.home.index_db()));
    checks.extend(super::connect::agent_env().map(|env| engram_core::agents::agent_checks(&env)).unwrap_or_default());
    let status = doctor::overall(&checks);
    if ctx.json {
        ctx.print_json(&serde_json::json!({ "status": status, "checks": checks }))?;
    } else {
        for c in &checks {
            let mark = match c.status {
                Status::Ok => "ok  ",
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
