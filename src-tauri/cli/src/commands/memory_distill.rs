//! `ambry memory distill`: the person's own agent CLI (`claude -p` / `codex exec`) proposes
//! memories from past sessions; the proposals wait in `ambry memory review` (DESIGN §14).
//! `--dry-run` shows the calls and estimated tokens and starts nothing. `--annotate`: the agent
//! proposes `when` phrases for the memories that do not say when they are needed.
//!
//! Owns: the arguments, printing the report, and stopping the agent with `ambry`: Ctrl-C,
//! SIGTERM and SIGHUP (a closed terminal) kill the running agent's whole process group through
//! core's `StopHandle` (the agent runs in a group of its own, which a terminal's signals do not
//! reach) and end the run with `stopped`.
//! Deliberately does not: select sessions, spawn the agent or judge its answer (core does).

use ambry_core::AnnotateReport;
use ambry_core::DistillAgent;
use ambry_core::DistillReport;
use ambry_core::Selection;
use ambry_core::StopHandle;
use anyhow::{Context as _, Result};
use chrono::NaiveDate;

use crate::context::Context;

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AgentArg {
    Claude,
    Codex,
}

impl From<AgentArg> for DistillAgent {
    fn from(a: AgentArg) -> Self {
        match a {
            AgentArg::Claude => DistillAgent::Claude,
            AgentArg::Codex => DistillAgent::Codex,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct DistillArgs {
    /// Which agent CLI to run (default: [distill] agent in config.toml, else claude)
    #[arg(long = "with", value_enum)]
    pub with: Option<AgentArg>,
    /// One session, by id (`ambry sessions list`)
    #[arg(long, conflicts_with_all = ["since", "project"])]
    pub session: Option<String>,
    /// Sessions active on or after this day (YYYY-MM-DD), of every project, each distilled for
    /// the project it ran in; with --project, only the current project's
    #[arg(long, value_parser = parse_day)]
    pub since: Option<NaiveDate>,
    /// The sessions of the current project (the default in a repository without --session or
    /// --since)
    #[arg(long)]
    pub project: bool,
    /// Show the calls and estimated tokens; run nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Instead of sessions: propose `when` phrases (when each is needed) for the memories of
    /// this view that have none, in one call; each waits in `ambry memory review`
    #[arg(long, conflicts_with_all = ["session", "since", "project"])]
    pub annotate: bool,
}

fn parse_day(s: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|e| format!("{e}: expected YYYY-MM-DD"))
}

pub fn run(ctx: &Context, args: DistillArgs) -> Result<()> {
    let ws = &ctx.workspace;
    if args.annotate {
        return annotate(ctx, &args);
    }
    let place = match &args.session {
        Some(id) if !args.project => ws
            .place_of_session(id)
            .with_context(|| format!("session {id}"))?,
        _ => ctx.place(),
    };
    let selection = Selection {
        session: args.session.clone(),
        since: args.since,
        project: args.project,
    };
    let stop = StopHandle::default();
    if !args.dry_run {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.stop())
            .context("cannot install the Ctrl-C / SIGTERM handler")?;
    }
    let report = ws.distill_stoppable(
        &place,
        &selection,
        args.with.map(Into::into),
        args.dry_run,
        ctx.now(),
        &stop,
    )?;
    if ctx.json {
        return ctx.print_json(&report);
    }
    print_report(&report);
    Ok(())
}

fn print_report(r: &DistillReport) {
    let agent = r.agent.as_str();
    if r.dry_run {
        println!(
            "dry run: {} call(s) to {agent}, about {} tokens in all; nothing was sent",
            r.calls.len(),
            r.estimated_tokens
        );
        for c in &r.calls {
            println!(
                "  {} turns {}–{}: {} bytes, ~{} tokens",
                c.session_id, c.first_turn, c.last_turn, c.prompt_bytes, c.estimated_tokens
            );
        }
    } else {
        println!(
            "{} call(s) to {agent} (~{} tokens): {} proposal(s) for review",
            r.calls.len(),
            r.estimated_tokens,
            r.proposals.len()
        );
        for p in &r.proposals {
            println!(
                "  {}  {:?} {}/{} — {}",
                p.id, p.action, p.scope, p.name, p.description
            );
        }
        for refused in &r.refused {
            println!("  refused {}: {}", refused.name, refused.reason);
        }
        if !r.proposals.is_empty() {
            println!("review them: ambry memory review (accept or reject <id>)");
        }
    }
    listed("not sent, nothing new since the last distill", &r.unchanged);
    listed(
        "left for a later run by the budget ([distill] max_calls / max_tokens)",
        &r.over_budget,
    );
}

/// `--annotate`: the agent proposes `when` phrases for the view's memories without them (or,
/// `--dry-run`, what would be sent). Ctrl-C, SIGTERM and SIGHUP stop it as a distill's.
fn annotate(ctx: &Context, args: &DistillArgs) -> Result<()> {
    let stop = StopHandle::default();
    if !args.dry_run {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.stop())
            .context("cannot install the Ctrl-C / SIGTERM handler")?;
    }
    let report = ctx.workspace.distill_annotate(
        &ctx.place(),
        args.with.map(Into::into),
        args.dry_run,
        ctx.now(),
        &stop,
    )?;
    if ctx.json {
        return ctx.print_json(&report);
    }
    print_annotate(&report);
    Ok(())
}

fn print_annotate(r: &AnnotateReport) {
    let agent = r.agent.as_str();
    let memories = |n: usize| format!("{n} memor{}", if n == 1 { "y" } else { "ies" });
    if r.memories.is_empty() {
        println!("no memory to annotate: every memory of this view says when it is needed, or waits in the review");
    } else if r.dry_run {
        println!(
            "dry run: {} in one call to {agent}, {} bytes, about {} tokens; nothing was sent",
            memories(r.memories.len()),
            r.prompt_bytes,
            r.estimated_tokens
        );
        for m in &r.memories {
            println!("  {m}");
        }
        if let Some(text) = &r.prompt {
            println!("what would be sent (secrets masked):\n{}", text.trim_end());
        }
    } else {
        println!(
            "{} sent to {agent} in one call (~{} tokens): {} proposal(s) for review",
            memories(r.memories.len()),
            r.estimated_tokens,
            r.proposals.len()
        );
        for p in &r.proposals {
            let phrases: Vec<String> = p
                .when
                .iter()
                .map(|w| format!("\"{}\"", ambry_core::escape_controls(w)))
                .collect();
            println!(
                "  {}  {}/{} when: {}",
                p.id,
                p.scope,
                p.name,
                phrases.join(", ")
            );
        }
        if !r.proposals.is_empty() {
            println!("review them: ambry memory review (accept or reject <id>)");
        }
    }
    listed("not sent, phrases already wait in the review", &r.pending);
    if !r.unanswered.is_empty() {
        println!(
            "the answer said nothing of: {} (sent again next time)",
            r.unanswered.join(", ")
        );
    }
    listed(
        "left for a later run by the budget ([distill] max_tokens / chunk_bytes)",
        &r.over_budget,
    );
}

/// One line naming `items` after `what`, when there are any.
fn listed(what: &str, items: &[String]) {
    if !items.is_empty() {
        println!("{what}: {}", items.join(", "));
    }
}
