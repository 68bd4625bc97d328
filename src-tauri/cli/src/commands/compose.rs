//! `ambry compose`: the memory block for one agent turn (DESIGN §5), also as a Claude Code or
//! Codex `UserPromptSubmit` hook (`--hook claude|codex`; core parses the payload and renders
//! the reply each agent expects).
//!
//! A hook must never break the agent's turn: in hook mode every problem is reported on stderr
//! and the command exits 0 (Claude Code adds a hook's stdout to the context on exit 0, and
//! blocks the prompt on exit 2).

use std::path::Path;

use ambry_core::agents::{hook_payload, Agent};
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ComposeArgs {
    /// The agent's next prompt (what memories are ranked against)
    #[arg(long, conflicts_with = "hook")]
    pub query: Option<String>,
    /// Read a hook payload on stdin instead (supported: claude, codex)
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
    Codex,
}

impl HookKind {
    fn agent(self) -> Agent {
        match self {
            HookKind::Claude => Agent::Claude,
            HookKind::Codex => Agent::Codex,
        }
    }
}

pub fn run(ctx: &Context, args: ComposeArgs) -> Result<()> {
    match args.hook {
        Some(kind) => {
            if let Err(e) = run_hook(ctx, kind.agent(), &args) {
                eprintln!("ambry: memory not injected: {e:#}");
            }
            Ok(())
        }
        None => {
            let query = args.query.clone().unwrap_or_default();
            emit(ctx, &ctx.cwd, &query, &args, None)
        }
    }
}

fn run_hook(ctx: &Context, agent: Agent, args: &ComposeArgs) -> Result<()> {
    // Bounded in size and time: an agent may leave the pipe open after the payload.
    let raw = crate::hook_stdin::read_payload(std::io::stdin(), crate::hook_stdin::PAYLOAD_WAIT)
        .map_err(|e| anyhow::anyhow!("reading the hook payload from stdin: {e}"))?;
    let turn = hook_payload::parse(agent, &raw)?;
    let cwd = turn.cwd.unwrap_or_else(|| ctx.cwd.clone());
    emit(
        ctx,
        &cwd,
        turn.prompt.as_deref().unwrap_or(""),
        args,
        Some(agent),
    )
}

fn emit(
    ctx: &Context,
    cwd: &Path,
    query: &str,
    args: &ComposeArgs,
    hook: Option<Agent>,
) -> Result<()> {
    let composition =
        crate::compose_client::composition(ctx, cwd, query, args.top_k, args.max_bytes)?;
    if ctx.json && hook.is_none() {
        return ctx.print_json(&composition);
    }
    for note in &composition.notes {
        eprintln!("note: {note}");
    }
    match hook {
        Some(agent) => print!("{}", hook_payload::render(agent, &composition.text)),
        None => print!("{}", composition.text),
    }
    Ok(())
}
