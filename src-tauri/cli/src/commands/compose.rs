//! `engram compose`: the memory block for one agent turn (DESIGN §5), also as a Claude Code
//! `UserPromptSubmit` hook (`--hook claude`).
//!
//! A hook must never break the agent's turn: in hook mode every problem is reported on stderr
//! and the command exits 0 (Claude Code adds a hook's stdout to the context on exit 0, and
//! blocks the prompt on exit 2).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::Deserialize;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ComposeArgs {
    /// The agent's next prompt (what memories are ranked against)
    #[arg(long, conflicts_with = "hook")]
    pub query: Option<String>,
    /// Read a hook payload on stdin instead (supported: claude)
    #[arg(long, value_enum)]
    pub hook: Option<HookKind>,
    /// Override retrieval.top_k
    #[arg(long, value_name = "N", value_parser = crate::scope_args::positive_count)]
    pub top_k: Option<usize>,
    /// Override retrieval.max_bytes
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<usize>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum HookKind {
    Claude,
}

/// The fields of a Claude Code `UserPromptSubmit` payload that compose uses.
#[derive(Debug, Deserialize)]
struct ClaudeHookPayload {
    prompt: Option<String>,
    cwd: Option<PathBuf>,
}

pub fn run(ctx: &Context, args: ComposeArgs) -> Result<()> {
    match args.hook {
        Some(HookKind::Claude) => {
            if let Err(e) = run_claude_hook(ctx, &args) {
                eprintln!("engram: memory not injected: {e:#}");
            }
            Ok(())
        }
        None => {
            let query = args.query.clone().unwrap_or_default();
            emit(ctx, &ctx.cwd, &query, &args, false)
        }
    }
}

fn run_claude_hook(ctx: &Context, args: &ComposeArgs) -> Result<()> {
    let mut raw = String::new();
    std::io::stdin().read_to_string(&mut raw).context("reading the hook payload from stdin")?;
    let payload: ClaudeHookPayload = serde_json::from_str(&raw).context("the hook payload is not the JSON Claude Code sends")?;
    let cwd = payload.cwd.unwrap_or_else(|| ctx.cwd.clone());
    emit(ctx, &cwd, payload.prompt.as_deref().unwrap_or(""), args, true)
}

fn emit(ctx: &Context, cwd: &Path, query: &str, args: &ComposeArgs, hook: bool) -> Result<()> {
    let composition = crate::compose_client::composition(ctx, cwd, query, args.top_k, args.max_bytes)?;
    if ctx.json && !hook {
        return ctx.print_json(&composition);
    }
    for note in &composition.notes {
        eprintln!("note: {note}");
    }
    print!("{}", composition.text);
    Ok(())
}
