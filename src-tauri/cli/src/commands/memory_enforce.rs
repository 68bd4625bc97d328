//! `ambry memory enforce list|test|on|off` (DESIGN §16): the rules memories carry, checked at
//! agents' tool calls. `test` runs a rule over the indexed sessions first, so a person sees
//! every past call it would have caught — what it would block wrongly too — before turning it on.

use ambry_core::{RuleStatus, ScopeFilter};
use anyhow::Result;

use crate::context::Context;
use crate::scope_args::{ScopeArg, ScopeFilterArg};

#[derive(Debug, clap::Subcommand)]
pub enum EnforceCommand {
    /// Every memory's rule in scope: tools, pattern, action, and whether it is on
    List {
        #[arg(long, value_enum, default_value_t)]
        scope: ScopeFilterArg,
    },
    /// Run a memory's rule over past sessions: every tool call it would have caught
    Test {
        name: String,
        #[arg(long, value_enum)]
        scope: Option<ScopeArg>,
    },
    /// Turn a memory's rule on (a rule an agent proposed stays off until a person does this)
    On {
        name: String,
        #[arg(long, value_enum)]
        scope: Option<ScopeArg>,
    },
    /// Turn a memory's rule off (it is kept in the file, and checks nothing)
    Off {
        name: String,
        #[arg(long, value_enum)]
        scope: Option<ScopeArg>,
    },
}

pub fn run(ctx: &Context, cmd: EnforceCommand) -> Result<()> {
    match cmd {
        EnforceCommand::List { scope } => list(ctx, scope.into()),
        EnforceCommand::Test { name, scope } => test(ctx, &name, scope),
        EnforceCommand::On { name, scope } => set(ctx, &name, scope, RuleStatus::On),
        EnforceCommand::Off { name, scope } => set(ctx, &name, scope, RuleStatus::Off),
    }
}

fn list(ctx: &Context, filter: ScopeFilter) -> Result<()> {
    let rows = ctx.workspace.rules(&ctx.place(), filter)?;
    if ctx.json {
        return ctx.print_json(&rows);
    }
    if rows.is_empty() {
        println!("no memory carries a rule; add one with `ambry memory save NAME … --enforce-tool Bash --enforce-match REGEX --enforce-action deny`");
    }
    for row in rows {
        println!(
            "{}/{}  {}  {} matching `{}`  [{}]",
            row.scope,
            row.name,
            row.rule.action,
            row.rule.tools.join(","),
            row.rule.pattern,
            row.rule.status.as_str()
        );
        if let Some(error) = row.error {
            println!("    skipped at every call: {error}");
        }
    }
    Ok(())
}

fn test(ctx: &Context, name: &str, scope: Option<ScopeArg>) -> Result<()> {
    let report = ctx
        .workspace
        .rule_backtest(&ctx.place(), scope.map(Into::into), name, None)?;
    if ctx.json {
        return ctx.print_json(&report);
    }
    for note in &report.notes {
        eprintln!("note: {note}");
    }
    println!(
        "{}/{}: read {} sessions, {} tool calls; the rule would have caught {}",
        report.scope,
        report.name,
        report.sessions,
        report.calls,
        report.caught.len()
    );
    for call in &report.caught {
        println!(
            "  {}  {}  {}{}",
            call.ts.as_deref().unwrap_or("(no time)"),
            call.source.as_str(),
            call.session_id,
            call.title
                .as_deref()
                .map(|t| format!("  {}", ambry_core::escape_controls(t)))
                .unwrap_or_default()
        );
        let first_line = call.input.lines().next().unwrap_or("");
        println!(
            "    {} $ {}",
            call.tool,
            ambry_core::escape_controls(first_line)
        );
    }
    Ok(())
}

fn set(ctx: &Context, name: &str, scope: Option<ScopeArg>, status: RuleStatus) -> Result<()> {
    let saved = ctx.workspace.set_rule_status(
        &ctx.place(),
        scope.map(Into::into),
        name,
        status,
        ctx.now(),
    )?;
    let memory = &saved.outcome.memory;
    if ctx.json {
        return ctx.print_json(&serde_json::json!({
            "scope": memory.scope,
            "name": memory.name,
            "enforce": memory.lifecycle.enforce,
            "changed": saved.outcome.changed,
        }));
    }
    println!("{}/{}: rule {}", memory.scope, memory.name, status.as_str());
    Ok(())
}
