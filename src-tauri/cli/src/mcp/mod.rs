//! `ambry mcp`: Ambry's memory as tools for any MCP client (Claude Code, Codex, Cursor…),
//! over stdio, on the official SDK (DESIGN §12).
//!
//! Owns: running the server on a byte stream until the client hangs up (stdio for the
//! command, any pipe for the fuzz target: both go through `serve`), and where the server's
//! diagnostics go (stderr only: stdout is the protocol).
//! Deliberately does not: hold a rule about memories; the tools call the same workspace as
//! every other front end (`tools`), and the server's teaching text lives in `guidance`.

mod guidance;
mod parse_errors;
mod resources;
mod tools;

use std::path::PathBuf;
use std::sync::Arc;

use ambry_core::Workspace;
use anyhow::{Context as _, Result};
pub use rmcp::service::QuitReason;
use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};

pub use tools::AmbryTools;

/// Serves the MCP session on stdin/stdout until the client hangs up.
pub fn run(workspace: Arc<Workspace>, cwd: PathBuf) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the MCP server's runtime")?;
    let (input, output) = rmcp::transport::stdio();
    runtime.block_on(serve(workspace, cwd, input, output))?;
    Ok(())
}

/// Serves one MCP session read from `input` and answered on `output` (newline-delimited
/// JSON-RPC) until the client hangs up; says why the session ended. `cwd` is the directory a
/// call is about when neither its arguments nor the client's roots name one.
pub async fn serve<R, W>(
    workspace: Arc<Workspace>,
    cwd: PathBuf,
    input: R,
    output: W,
) -> Result<QuitReason>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (input, output, relay) = parse_errors::guard(input, output);
    let running = AmbryTools::new(workspace, cwd)
        .serve((input, output))
        .await
        .context("the MCP client did not complete the handshake")?;
    let quit = running
        .waiting()
        .await
        .context("the MCP session ended with an error");
    // Every answer, parse errors included, is written out before the session ends.
    let _ = relay.await;
    quit
}
