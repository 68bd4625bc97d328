//! `engram mcp`: Engram's memory as tools for any MCP client (Claude Code, Codex, Cursor…),
//! over stdio, on the official SDK (DESIGN §12).
//!
//! Owns: running the server until the client hangs up, and where the server's diagnostics go
//! (stderr only: stdout is the protocol).
//! Deliberately does not: hold a rule about memories; the tools call the same workspace as
//! every other front end (`tools`), and the server's teaching text lives in `guidance`.

mod guidance;
mod resources;
mod tools;

use anyhow::{Context as _, Result};
use rmcp::ServiceExt;

use crate::context::Context;

pub use tools::EngramTools;

pub fn run(ctx: &Context) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the MCP server's runtime")?;
    let server = EngramTools::new(ctx.workspace.clone(), ctx.cwd.clone());
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .context("the MCP client did not complete the handshake")?;
        running.waiting().await.context("the MCP session ended with an error")?;
        Ok(())
    })
}
