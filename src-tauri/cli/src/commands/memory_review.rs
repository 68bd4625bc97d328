//! `ambry memory review`: the review inbox (duplicates, conflicts, stale, expired; DESIGN §14)
//! and the actions on it — `keep`, `supersede`, `merge` (forget is `ambry memory forget`) — and
//! `accept` / `reject` for distill proposals (`ambry memory distill`), and `--ask claude|codex`:
//! the person's own agent judges the pairs marked "duplicate or conflict?" (core runs it).

use std::path::PathBuf;

use ambry_core::{AskReport, Finding, StopHandle, Subject};
use anyhow::{Context as _, Result};

use super::memory_distill::AgentArg;
use crate::context::Context;
use crate::scope_args::ScopeArg;

#[derive(Debug, clap::Args)]
pub struct ReviewArgs {
    #[command(subcommand)]
    pub action: Option<ReviewAction>,
    /// Let your own agent CLI judge the pairs marked "duplicate or conflict?" (one run for all
    /// of them; each verdict is kept until either memory changes). It changes no memory
    #[arg(long, value_enum, value_name = "AGENT")]
    pub ask: Option<AgentArg>,
    /// With --ask: show what would be sent and its size; send nothing
    #[arg(long, requires = "ask")]
    pub dry_run: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum ReviewAction {
    /// Keep a memory as it is: not flagged again until its text changes
    Keep {
        name: String,
        #[arg(long, value_enum, default_value = "user")]
        scope: ScopeArg,
    },
    /// Mark NAME as replaced by another memory: it is no longer injected
    Supersede {
        name: String,
        /// The memory that replaces it
        #[arg(long)]
        by: String,
        #[arg(long, value_enum, default_value = "user")]
        scope: ScopeArg,
    },
    /// Merge FROM into INTO: INTO gets the merged text and `merged_from`; FROM is archived and removed
    Merge {
        into: String,
        from: String,
        #[arg(long, value_enum, default_value = "user")]
        scope: ScopeArg,
        /// FROM's scope (default: the same as INTO's)
        #[arg(long, value_enum)]
        from_scope: Option<ScopeArg>,
        /// The merged body (default: INTO's body with the sentences of FROM it does not say)
        #[arg(long, value_name = "FILE")]
        body_file: Option<PathBuf>,
    },
    /// Accept a distill proposal: an ordinary archived save with `source:` naming its session
    Accept {
        id: String,
        /// Save it under another name
        #[arg(long)]
        name: Option<String>,
        /// Another type
        #[arg(long = "type")]
        kind: Option<String>,
        /// Another description
        #[arg(long)]
        description: Option<String>,
        /// Another body, from a file
        #[arg(long, value_name = "FILE")]
        body_file: Option<PathBuf>,
    },
    /// Reject a distill proposal: it leaves the inbox, no memory is touched
    Reject { id: String },
    /// A team memory that changed through git: you have read it as it is now
    Seen { name: String },
    /// Say when NAME is needed: its `when` phrases (replacing any it had), in the words you
    /// would use then; the "needs when" finding offers the prompts an agent fetched it for
    When {
        name: String,
        #[arg(required = true, value_name = "PHRASE")]
        phrases: Vec<String>,
        #[arg(long, value_enum, default_value = "user")]
        scope: ScopeArg,
    },
}

pub fn run(ctx: &Context, args: ReviewArgs) -> Result<()> {
    let place = ctx.place();
    let ws = &ctx.workspace;
    if let Some(agent) = args.ask {
        anyhow::ensure!(
            args.action.is_none(),
            "--ask lists the review with the agent's verdicts; give it without an action"
        );
        return ask(ctx, agent, args.dry_run);
    }
    let done = match args.action {
        None => return list(ctx, ws.review(&place, ctx.now())?),
        Some(ReviewAction::Accept {
            id,
            name,
            kind,
            description,
            body_file,
        }) => {
            let body = read_body(body_file)?;
            let edits = ambry_core::Edits {
                name,
                kind,
                description,
                body,
            };
            let saved = ws.accept_proposal(&place, &id, &edits, ctx.now())?;
            if ctx.json {
                return ctx.print_json(&saved);
            }
            let m = &saved.outcome.memory;
            println!("accepted {id}: saved {}/{}", m.scope, m.name);
            return Ok(());
        }
        Some(ReviewAction::Seen { name }) => {
            ws.team_seen(&place, &name)?;
            if !ctx.json {
                println!("team/{name}: seen as it reads now");
            }
            return Ok(());
        }
        Some(ReviewAction::Reject { id }) => {
            let rejected = ws.reject_proposal(&id, ctx.now())?;
            if ctx.json {
                return ctx.print_json(&rejected);
            }
            println!("rejected {id} ({}); no memory was changed", rejected.name);
            return Ok(());
        }
        Some(ReviewAction::When {
            name,
            phrases,
            scope,
        }) => ws.review_when(&place, scope.into(), &name, &phrases, ctx.now())?,
        Some(ReviewAction::Keep { name, scope }) => {
            ws.review_keep(&place, scope.into(), &name, ctx.now())?
        }
        Some(ReviewAction::Supersede { name, by, scope }) => {
            ws.review_supersede(&place, scope.into(), &name, &by, ctx.now())?
                .memory
        }
        Some(ReviewAction::Merge {
            into,
            from,
            scope,
            from_scope,
            body_file,
        }) => {
            let body = read_body(body_file)?;
            let from_scope = from_scope.unwrap_or(scope).into();
            ws.review_merge(
                &place,
                (scope.into(), &into),
                (from_scope, &from),
                ambry_core::MergeText {
                    body,
                    description: None,
                },
                ctx.now(),
            )?
            .memory
        }
    };
    if ctx.json {
        return ctx.print_json(&done);
    }
    println!(
        "saved {}/{} (prior version archived)",
        done.scope, done.name
    );
    Ok(())
}

/// `--ask`: the agent judges the uncertain pairs (or, `--dry-run`, what would be sent); then the
/// review is listed with every verdict beside its pair. Ctrl-C, SIGTERM and SIGHUP kill the
/// running agent's whole process group, as `memory distill` does.
fn ask(ctx: &Context, agent: AgentArg, dry_run: bool) -> Result<()> {
    let place = ctx.place();
    let ws = &ctx.workspace;
    let stop = StopHandle::default();
    if !dry_run {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.stop())
            .context("cannot install the Ctrl-C / SIGTERM handler")?;
    }
    let report = ws.review_ask(&place, Some(agent.into()), dry_run, ctx.now(), &stop)?;
    if ctx.json {
        return ctx.print_json(&report);
    }
    print_ask(&report);
    if !dry_run {
        println!();
        list(ctx, ws.review(&place, ctx.now())?)?;
    }
    Ok(())
}

fn print_ask(r: &AskReport) {
    let agent = r.agent.as_str();
    let pairs = |n: usize| format!("{n} pair{}", if n == 1 { "" } else { "s" });
    if r.pairs.is_empty() {
        println!(
            "no pair to ask {agent} about ({} answered before, unchanged since)",
            pairs(r.cached)
        );
    } else if r.dry_run {
        println!(
            "dry run: {} in one call to {agent}, {} bytes, about {} tokens; nothing was sent",
            pairs(r.pairs.len()),
            r.prompt_bytes,
            r.estimated_tokens
        );
        for p in &r.pairs {
            println!("  {} and {}", p.memories[0], p.memories[1]);
        }
        if let Some(text) = &r.prompt {
            println!("what would be sent (secrets masked):\n{}", text.trim_end());
        }
    } else {
        println!(
            "{} judged by {agent} in one call (~{} tokens); no memory was changed",
            pairs(r.pairs.len()),
            r.estimated_tokens
        );
    }
    if r.cached > 0 && !r.pairs.is_empty() {
        println!("not sent, answered before: {}", pairs(r.cached));
    }
    if !r.unanswered.is_empty() {
        let names: Vec<String> = r
            .unanswered
            .iter()
            .map(|[a, b]| format!("{a} and {b}"))
            .collect();
        println!(
            "the answer said nothing of: {} (asked again next time)",
            names.join(", ")
        );
    }
    if !r.over_budget.is_empty() {
        let names: Vec<String> = r
            .over_budget
            .iter()
            .map(|[a, b]| format!("{a} and {b}"))
            .collect();
        println!(
            "left for a later run by the budget ([distill] max_tokens / chunk_bytes): {}",
            names.join(", ")
        );
    }
}

/// The `--body-file` text, read by the same rule as `memory save --body-file`.
fn read_body(file: Option<PathBuf>) -> Result<Option<String>> {
    file.map(|f| super::memory::body_file_text(&f)).transpose()
}

/// `x vs y, …` for a pair's claims.
fn claims_text(claims: &[(String, String)]) -> String {
    let claims: Vec<String> = claims.iter().map(|(x, y)| format!("{x} vs {y}")).collect();
    claims.join(", ")
}

/// What a pair is about, as its claims read (" — about the orders service"), or nothing.
fn about(subject: &[String]) -> String {
    if subject.is_empty() {
        String::new()
    } else {
        format!(" — about {}", subject.join(", "))
    }
}

/// What the person's agent said of a pair (it decides nothing), or how to ask it.
fn agent_line(verdict: Option<&ambry_core::AgentVerdict>) -> String {
    match verdict {
        Some(v) => format!(
            "  {} says: {} — {}\n",
            v.agent.as_str(),
            v.verdict.as_str(),
            ambry_core::escape_controls(&v.reason)
        ),
        None => "  ask your agent: ambry memory review --ask claude (or codex)\n".to_string(),
    }
}

/// Both memories of a pair, one line each: `  name: body`.
fn both_texts(a: &Subject, b: &Subject) -> String {
    format!(
        "  {}: {}\n  {}: {}",
        a.name,
        a.body.trim(),
        b.name,
        b.body.trim()
    )
}

fn list(ctx: &Context, findings: Vec<Finding>) -> Result<()> {
    if ctx.json {
        return ctx.print_json(&findings);
    }
    if findings.is_empty() {
        println!("nothing to review");
        return Ok(());
    }
    for f in &findings {
        match f {
            Finding::Duplicate {
                memories: [a, b],
                similarity,
                subject,
                agreed,
                meaning,
            } => println!(
                "duplicate  {}/{} and {}/{} say the same thing (similarity {similarity:.2}{}){}{}\n  merge: ambry memory review merge {} {}",
                a.scope,
                a.name,
                b.scope,
                b.name,
                meaning
                    .map(|m| format!(", meaning {m:.2}"))
                    .unwrap_or_default(),
                about(subject),
                agreed
                    .iter()
                    .map(|(x, y)| format!("; {x} = {y}"))
                    .collect::<String>(),
                a.name,
                b.name
            ),
            Finding::Conflict {
                memories: [a, b],
                claims,
                subject,
                ..
            } => println!(
                "conflict   {}/{} and {}/{} disagree: {}{}\n{}",
                a.scope,
                a.name,
                b.scope,
                b.name,
                claims_text(claims),
                about(subject),
                both_texts(a, b)
            ),
            Finding::SameSubject {
                memories: [a, b],
                claims,
                agent,
                ..
            } => println!(
                "same subject  {}/{} and {}/{} read alike but differ: {} — duplicate or conflict?\n{}  \
                 the same: ambry memory review merge {} {}\n  \
                 one replaces the other: ambry memory review supersede {} --by {}\n{}",
                a.scope,
                a.name,
                b.scope,
                b.name,
                claims_text(claims),
                agent_line(agent.as_ref()),
                a.name,
                b.name,
                a.name,
                b.name,
                both_texts(a, b)
            ),
            Finding::Stale { memory, missing } => {
                println!(
                    "stale      {}/{} names paths no longer in the repository:",
                    memory.scope, memory.name
                );
                for m in missing {
                    println!("  {} (removed or renamed in {} {})", m.path, m.commit, m.subject);
                }
            }
            Finding::Expired { memory, on } => println!(
                "expired    {}/{} expired on {on}",
                memory.scope, memory.name
            ),
            Finding::Ignored {
                memory,
                session_id,
                agent,
                calls,
                other_sessions,
                rule,
                own_rule,
            } => {
                let more = if *other_sessions > 0 {
                    format!(" (and in {other_sessions} other session(s))")
                } else {
                    String::new()
                };
                println!(
                    "ignored    {}/{}: {agent} session {session_id} held it, then did what it says not to{more}:",
                    memory.scope, memory.name
                );
                for call in calls {
                    println!(
                        "  {} {} $ {}",
                        call.ts.as_deref().unwrap_or("(no time)"),
                        call.tool,
                        ambry_core::escape_controls(call.input.lines().next().unwrap_or(""))
                    );
                }
                let how = if !own_rule {
                    format!(
                        "ambry memory save {} … --enforce-tool {} --enforce-match '{}' --enforce-action deny",
                        memory.name,
                        rule.tools.join(","),
                        rule.pattern
                    )
                } else {
                    format!("ambry memory enforce on {}", memory.name)
                };
                println!("  make it stick: {how}");
            }
            Finding::NeedsWhen {
                memory,
                fetches,
                more,
            } => {
                let more = if *more > 0 {
                    format!(" (and {more} more time(s))")
                } else {
                    String::new()
                };
                println!(
                    "needs when {}/{}: an agent had to fetch it, the turn was not given it{more}; it does not say when it is needed:",
                    memory.scope, memory.name
                );
                for f in fetches {
                    println!(
                        "  {} {} session {}: \"{}\"",
                        f.fetch.at.map_or("(no time)".to_string(), ambry_core::rfc3339),
                        f.agent,
                        f.session_id,
                        ambry_core::escape_controls(f.fetch.prompt.as_deref().unwrap_or(""))
                    );
                }
                let first = fetches
                    .iter()
                    .find_map(|f| f.fetch.prompt.as_deref())
                    .unwrap_or("PHRASE");
                println!(
                    "  say when: ambry memory review when {} --scope {} '{}' …",
                    memory.name,
                    memory.scope,
                    ambry_core::escape_controls(first).replace('\'', "'\\''")
                );
            }
            Finding::ChangedByTeam { memory, before } => {
                let what = if before.is_empty() { "arrived" } else { "changed" };
                println!(
                    "team       {}/{} {what} through git (agents are given it: it came through the team's review)",
                    memory.scope, memory.name
                );
                if !before.is_empty() {
                    println!("  before: {}", one_line(before));
                }
                println!("  now:    {}", one_line(&memory.body));
                println!("  seen it: ambry memory review seen {}", memory.name);
            }
            Finding::RuleProposed { memory, rule } => println!(
                "rule       {}/{}: an agent proposed a rule — {} {} calls matching `{}`; it is off until you turn it on\n  see what it would have caught: ambry memory enforce test {}\n  turn it on: ambry memory enforce on {}   (or remove it: ambry memory save {} … --no-enforce)",
                memory.scope,
                memory.name,
                rule.action,
                rule.tools.join(","),
                ambry_core::escape_controls(&rule.pattern),
                memory.name,
                memory.name,
                memory.name
            ),
            Finding::Unused {
                memory,
                last_used,
                days,
            } => println!(
                "unused     {}/{} was not given to or fetched by an agent in {days} days (last used: {})",
                memory.scope,
                memory.name,
                last_used.map_or("never".to_string(), |at| at.date_naive().to_string())
            ),
            Finding::ChangedOnTwoMachines(c) => {
                let machine = |s: &ambry_core::Side| {
                    let on = if s.here { "this machine" } else { "another machine" };
                    if s.deleted {
                        format!("deleted on {on}")
                    } else {
                        format!("from {on}")
                    }
                };
                println!(
                    "two machines  {} changed on two machines [{}]: kept {} in the file, the other ({}) archived\n  \
                     kept:\n  {}\n  other:\n  {}\n  keep it: ambry sync dismiss {}   the other: ambry sync use-other {}   (or edit it, then dismiss)",
                    c.path,
                    c.id,
                    machine(&c.kept),
                    machine(&c.other),
                    c.kept.text.trim().replace('\n', "\n  "),
                    c.other.text.trim().replace('\n', "\n  "),
                    c.id,
                    c.id
                );
            }
            Finding::Proposal(p) if p.when_only() => {
                let phrases: Vec<String> = p
                    .when
                    .iter()
                    .map(|w| format!("\"{}\"", ambry_core::escape_controls(w)))
                    .collect();
                println!(
                    "proposal   {}  say when {}/{} is needed ({}): {}\n  {}\n  accept: ambry memory review accept {}   reject: ambry memory review reject {}",
                    p.id,
                    p.scope,
                    p.name,
                    p.agent.as_str(),
                    phrases.join(", "),
                    ambry_core::escape_controls(&p.description),
                    p.id,
                    p.id
                );
            }
            Finding::Proposal(p) => {
                let turns: Vec<String> =
                    p.source_turns.iter().map(|t| t.turn.to_string()).collect();
                let target = p
                    .target
                    .as_deref()
                    .map(|t| format!(" (target {t})"))
                    .unwrap_or_default();
                println!(
                    "proposal   {}  {:?} {}/{}{target} — {}\n  from session {} turns {} ({}): {}\n  {}\n  accept: ambry memory review accept {}   reject: ambry memory review reject {}",
                    p.id,
                    p.action,
                    p.scope,
                    p.name,
                    p.description,
                    p.session_id,
                    turns.join(","),
                    p.agent.as_str(),
                    p.reason,
                    p.body.trim().replace('\n', "\n  "),
                    p.id,
                    p.id
                );
            }
        }
    }
    Ok(())
}

/// A text on one line, cut to a screen's width (the full text is `memory get`'s).
fn one_line(text: &str) -> String {
    let flat = ambry_core::escape_controls(&text.split_whitespace().collect::<Vec<_>>().join(" "))
        .into_owned();
    match flat.char_indices().nth(160) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}
