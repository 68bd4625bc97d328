//! `ambry sessions index|watch|list|show` and `ambry recall`.
//!
//! Everything goes through the workspace, which knows where each source keeps its transcripts.

use std::io::Write;
use std::path::PathBuf;

use ambry_core::IndexRequest;
use ambry_core::{IndexSummary, RecallHit, RecallQuery, SessionChange, SourceKind};
use anyhow::{Context as _, Result};

use crate::context::Context;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SourceArg {
    Claude,
    Codex,
    Ambry,
    All,
}

impl SourceArg {
    fn kind(self) -> Option<SourceKind> {
        match self {
            SourceArg::Claude => Some(SourceKind::Claude),
            SourceArg::Codex => Some(SourceKind::Codex),
            SourceArg::Ambry => Some(SourceKind::Ambry),
            SourceArg::All => None,
        }
    }
}

#[derive(Debug, clap::Subcommand)]
pub enum SessionsCommand {
    /// Index new transcript lines once (incremental; only new bytes are read)
    Index {
        /// Which source to index
        #[arg(long, value_enum, default_value = "all")]
        source: SourceArg,
        /// Read every transcript again from the start (sessions whose transcript file is gone are kept)
        #[arg(long)]
        rebuild: bool,
    },
    /// Keep the index current as transcripts are written (Ctrl-C to stop)
    Watch,
    /// Indexed sessions, most recent first
    List {
        #[arg(long, value_enum, default_value = "all")]
        source: SourceArg,
        #[arg(long, default_value_t = 20, value_parser = crate::scope_args::positive_count)]
        limit: usize,
    },
    /// Print one session's transcript
    Show {
        /// The session id (as `sessions list` and `recall` print it)
        id: String,
    },
    /// Remove sessions kept after their transcript file was deleted
    Prune(super::sessions_prune::PruneArgs),
}

#[derive(Debug, clap::Args)]
pub struct RecallArgs {
    /// What to look for: words, a question, or FTS5 syntax (`OR`, "exact phrase", prefix*)
    pub query: String,
    /// Most results to show
    #[arg(long, default_value_t = 10, value_parser = crate::scope_args::positive_count)]
    pub limit: usize,
    /// Only this source
    #[arg(long, value_enum, default_value = "all")]
    pub source: SourceArg,
    /// Only sessions that ran in DIR or below it (without DIR: the current project)
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = "")]
    pub project: Option<PathBuf>,
    /// Search the index as it is, without indexing new transcript lines first
    #[arg(long)]
    pub no_index: bool,
}

/// Source locations, read from the environment here and nowhere deeper.
pub fn run(ctx: &Context, cmd: SessionsCommand) -> Result<()> {
    match cmd {
        SessionsCommand::Index { source, rebuild } => index(ctx, source, rebuild),
        SessionsCommand::Watch => watch(ctx),
        SessionsCommand::Prune(args) => super::sessions_prune::run(ctx, args),
        SessionsCommand::List { source, limit } => {
            let sessions = ctx.workspace.sessions(source.kind(), limit)?;
            if ctx.json {
                return ctx.print_json(&sessions);
            }
            if sessions.is_empty() {
                println!("no sessions indexed; run `ambry sessions index`");
            }
            for s in sessions {
                let when = s.last_ts.as_deref().map(short_ts).unwrap_or("-");
                let gone = s
                    .source_removed_at
                    .as_deref()
                    .map(|t| format!("  (file deleted {})", short_ts(t)))
                    .unwrap_or_default();
                println!(
                    "{when:<16}  {:<6}  {}  {}{gone}",
                    s.source,
                    s.session_id,
                    s.title.as_deref().unwrap_or("(untitled)")
                );
            }
            Ok(())
        }
        SessionsCommand::Show { id } => {
            let t = ctx.workspace.transcript(&id)?;
            // What Ambry's hooks gave this session (the injection ledger).
            let given = ctx.workspace.injections(Some(&id), None)?;
            // The tool calls memories' rules denied or reminded (DESIGN §16).
            let checked = ctx.workspace.tool_checks(Some(&id))?;
            if ctx.json {
                let mut value = serde_json::to_value(&t)?;
                if let Some(map) = value.as_object_mut() {
                    map.insert("injections".into(), serde_json::to_value(&given)?);
                    map.insert("tool_checks".into(), serde_json::to_value(&checked)?);
                }
                return ctx.print_json(&value);
            }
            println!("# {}", t.meta.title.as_deref().unwrap_or("(untitled)"));
            println!(
                "{} session {} in {}",
                t.meta.source,
                t.meta.session_id,
                t.meta.cwd.as_deref().unwrap_or("?")
            );
            if let Some(when) = &t.meta.source_removed_at {
                println!(
                    "(the transcript file was deleted {}; these are the turns the index kept)",
                    short_ts(when)
                );
            }
            if !given.is_empty() {
                println!("\nMemory Ambry gave this session ({}):", given.len());
                for g in &given {
                    println!(
                        "  {} context {} {} {}/{} ({}){}",
                        short_ts(&g.at.to_rfc3339()),
                        g.generation,
                        match g.form {
                            ambry_core::Form::Body => "body",
                            ambry_core::Form::Line => "line",
                        },
                        g.memory.scope,
                        g.memory.name,
                        g.memory.content_hash,
                        if g.in_context {
                            ""
                        } else {
                            ", compacted away since"
                        }
                    );
                }
            }
            if !checked.is_empty() {
                println!("\nTool calls memories' rules acted on ({}):", checked.len());
                for c in &checked {
                    let verb = if c.action == "deny" {
                        "DENIED"
                    } else {
                        "reminded"
                    };
                    println!(
                        "  {} {verb} by {}/{}: {} $ {}",
                        short_ts(&c.at.to_rfc3339()),
                        c.scope,
                        c.name,
                        c.tool,
                        ambry_core::escape_controls(c.input.lines().next().unwrap_or(""))
                    );
                }
            }
            for turn in t.turns {
                // What the agent injected is named as such, never shown as the person's words.
                let who = match &turn.label {
                    Some(label) => format!("context: {label}"),
                    None => turn.role.clone(),
                };
                println!(
                    "\n[{who}] {}\n{}",
                    turn.ts.as_deref().unwrap_or(""),
                    turn.text
                );
            }
            Ok(())
        }
    }
}

fn index(ctx: &Context, source: SourceArg, rebuild: bool) -> Result<()> {
    if ctx.workspace.session_indexer_at_work() {
        eprintln!("another indexer (the app, or another `ambry sessions index`) is at work; waiting for it to finish");
    }
    let summary = ctx.workspace.index_sessions(
        &IndexRequest {
            only: source.kind(),
            rebuild,
        },
        ctx.now(),
        &mut |_| {},
    )?;
    warn_about_problems(&summary);
    // Vectors for recall by meaning: only messages that have none yet; without the model
    // recall works by words and this says why.
    let vectors = ctx.workspace.embed_sessions(None, &mut |_| {});
    if ctx.json {
        return ctx.print_json(&summary);
    }
    print_summary(&summary);
    match vectors {
        Ok(fill) => println!(
            "embedded {} new message(s) ({} chunk(s)) for recall by meaning",
            fill.messages, fill.chunks
        ),
        Err(why) => println!("no vectors for recall by meaning: {why}"),
    }
    Ok(())
}

/// Files that could not be read, or had lines skipped, named on stderr; the run still succeeded.
fn warn_about_problems(s: &IndexSummary) {
    for p in &s.problems {
        eprintln!("warning: {}", p.describe());
    }
}

fn print_summary(s: &IndexSummary) {
    println!(
        "indexed {} new message(s) from {} of {} file(s) in {:.2}s; {} session(s) in the index",
        s.messages_indexed, s.files_indexed, s.files, s.seconds, s.sessions
    );
    if s.files_reindexed_whole > 0 {
        println!(
            "  {} file(s) shrank or were replaced and were read again from the start",
            s.files_reindexed_whole
        );
    }
    if s.vault_kept > 0 {
        println!("  {} session(s) whose transcript file is gone were kept (`ambry sessions prune --source-removed` removes them)", s.vault_kept);
    }
    if s.files_removed > 0 {
        println!("  {} file(s) are gone; their sessions stay searchable (`ambry sessions prune --source-removed` removes them)", s.files_removed);
    }
    if s.malformed_lines > 0 {
        println!("  {} malformed line(s) skipped", s.malformed_lines);
    }
    if !s.lines_skipped.is_empty() {
        let kinds: Vec<String> = s
            .lines_skipped
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        println!("  not indexed by kind: {}", kinds.join(", "));
    }
}

fn watch(ctx: &Context) -> Result<()> {
    let roots = ctx.workspace.session_roots();
    let cfg = ctx.config()?.sessions;
    let json = ctx.json;
    for source in &cfg.sources {
        if let Some(root) = roots.root(*source) {
            eprintln!("watching {source}: {}", root.display());
        }
    }
    eprintln!("(Ctrl-C to stop)");
    let on_change = move |change: SessionChange| {
        let line = if json {
            serde_json::to_string(&change).unwrap_or_default()
        } else {
            match &change {
                SessionChange::Indexed {
                    source,
                    session_id,
                    path,
                    messages,
                } => {
                    format!(
                        "indexed {source} {session_id}: +{messages} message(s) ({})",
                        path.display()
                    )
                }
                SessionChange::Removed { path } => format!("removed {}", path.display()),
                SessionChange::Failed { message } => format!("error: {message}"),
            }
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    let _watcher = ctx
        .workspace
        .watch_sessions(|| chrono::Utc::now().timestamp(), on_change)?;
    loop {
        std::thread::park();
    }
}

pub fn recall(ctx: &Context, args: RecallArgs) -> Result<()> {
    let cwd_prefix = match args.project {
        None => None,
        Some(dir) if dir.as_os_str().is_empty() => Some(
            ctx.workspace
                .project_at(&ctx.cwd)
                .map(|p| p.root)
                .unwrap_or_else(|_| ctx.cwd.clone()),
        ),
        Some(dir) => {
            let dir = ctx.cwd.join(dir);
            Some(dir.canonicalize().unwrap_or(dir))
        }
    };
    let query = RecallQuery {
        text: args.query.clone(),
        limit: args.limit,
        source: args.source.kind(),
        cwd_prefix,
    };
    let (hits, notes) = crate::recall_client::recall(ctx, &query, !args.no_index)
        .with_context(|| format!("recall {:?}", args.query))?;
    for note in notes {
        eprintln!("note: {note}");
    }
    if ctx.json {
        return ctx.print_json(&hits);
    }
    if hits.is_empty() {
        println!("no matching sessions");
    }
    for hit in &hits {
        print_hit(hit);
    }
    Ok(())
}

fn print_hit(h: &RecallHit) {
    let when = h.ts.as_deref().map(short_ts).unwrap_or("-");
    // A session that matched only some of the question's words says so: its score is relative
    // to the others (the top is 1.00 whatever it matched), so it cannot.
    println!(
        "{:.2}  {:<6}  {when:<16}  {}  ({}){}",
        h.score,
        h.source,
        h.title.as_deref().unwrap_or("(untitled)"),
        h.cwd.as_deref().unwrap_or("?"),
        if h.widened { "  [some words]" } else { "" }
    );
    if h.turns.is_empty() {
        println!("      {}: {}", h.role, h.snippet);
    }
    for turn in &h.turns {
        println!("      {}: {}", turn.role, turn.snippet);
    }
    match &h.source_removed_at {
        Some(when) => println!(
            "      session {}  {} (deleted {}; kept in the index)",
            h.session_id,
            h.path,
            short_ts(when)
        ),
        None => println!("      session {}  {}", h.session_id, h.path),
    }
}

/// `2026-02-10T21:11:56.846Z` → `2026-02-10T21:11`.
fn short_ts(ts: &str) -> &str {
    ts.get(..16).unwrap_or(ts)
}
