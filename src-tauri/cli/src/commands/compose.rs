//! `ambry compose` (DESIGN §5): what an agent's context gets of memory. `--hook claude|codex`
//! reads the agent's hook payload and answers the event it names (SessionStart: anchors and
//! the memory map; UserPromptSubmit: what this context does not hold yet; PreCompact: the
//! ledger starts over; PreToolUse: the call checked against the memories' rules, DESIGN §16) in
//! that agent's format; `--query TEXT [--session ID]` shows the same for a
//! person or a script (no session: a fresh context) and records nothing.
//!
//! A hook must never break the agent's turn: in hook mode every problem is reported on stderr
//! and the command exits 0 (Claude Code adds a hook's stdout to the context on exit 0, and
//! blocks the prompt on exit 2). Lasting conditions (no model, a bad config) are said once per
//! context, when it starts, not on every turn.
use std::time::{Duration, Instant};

use ambry_core::Agent;
use ambry_core::{hook, ContextEvent, ContextRequest};
use anyhow::Result;

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ComposeArgs {
    /// A prompt: what memories are ranked against
    #[arg(long, conflicts_with = "hook")]
    pub query: Option<String>,
    /// The agent session whose context the prompt continues (default: a fresh context)
    #[arg(long, value_name = "ID", requires = "query")]
    pub session: Option<String>,
    /// Read a hook payload on stdin instead (supported: claude, codex)
    #[arg(long, value_enum)]
    pub hook: Option<HookKind>,
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
        // Inside a distill's agent child: that run must never pull memory in or start anything.
        Some(_) if ctx.workspace.env().distill_child => Ok(()),
        Some(kind) => {
            if let Err(e) = run_hook(ctx, kind.agent()) {
                eprintln!("ambry: memory not injected: {e:#}");
            }
            Ok(())
        }
        None => {
            let query = args.query.clone().unwrap_or_default();
            let request = ContextRequest::query(&query, args.session.as_deref());
            let composition = crate::compose_client::composition(ctx, &ctx.cwd, &request, None)?;
            if ctx.json {
                return ctx.print_json(&composition);
            }
            for line in composition.conditions.iter().chain(&composition.notes) {
                eprintln!("note: {line}");
            }
            print!("{}", composition.text);
            Ok(())
        }
    }
}

/// All an agent's turn may take, from the hook's start: waiting for the payload and for the
/// service count against it (DESIGN §5: never more than 2 s).
const TURN_BUDGET: Duration = Duration::from_secs(2);

fn run_hook(ctx: &Context, agent: Agent) -> Result<()> {
    let deadline = Instant::now() + TURN_BUDGET;
    // Bounded in size and time: an agent may leave the pipe open after the payload.
    let raw = crate::hook_stdin::read_payload(std::io::stdin(), crate::hook_stdin::PAYLOAD_WAIT)
        .map_err(|e| anyhow::anyhow!("reading the hook payload from stdin: {e}"))?;
    let (request, cwd) = match hook::parse_call(agent, &raw)? {
        (hook::HookCall::Context(request), cwd) => (request, cwd),
        (hook::HookCall::Tool(check), cwd) => {
            let cwd = cwd.unwrap_or_else(|| ctx.cwd.clone());
            let verdict = crate::compose_client::tool_verdict(ctx, &cwd, &check, deadline);
            for note in &verdict.notes {
                eprintln!("ambry: {note}");
            }
            print!("{}", hook::render_tool(&verdict));
            return Ok(());
        }
    };
    let cwd = cwd.unwrap_or_else(|| ctx.cwd.clone());
    let composition = crate::compose_client::composition(ctx, &cwd, &request, Some(deadline))?;
    let context_starts = composition.moment == "new_context";
    if context_starts {
        for condition in &composition.conditions {
            eprintln!("ambry: {condition}");
        }
    }
    for note in &composition.notes {
        eprintln!("ambry: {note}");
    }
    let event = if request.event == ContextEvent::Turn && context_starts {
        ContextEvent::Turn
    } else {
        request.event
    };
    print!("{}", hook::render(agent, event, &composition.text));
    Ok(())
}
