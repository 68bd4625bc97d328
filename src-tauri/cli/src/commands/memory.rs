//! `ambry memory list|get|save|forget` and the dispatch of the other memory subcommands.

use std::io::IsTerminal;
use std::path::PathBuf;

use ambry_core::Reader;
use ambry_core::{read_named_input, read_regular_unlinked, read_stream, ReadRefusal};
use ambry_core::{Memory, MemoryDraft, Scope};
use ambry_core::{BODY_MAX, MEMORY_FILE_MAX};
use anyhow::{anyhow, Result};

use super::archive::{self, ArchiveCommand};
use crate::context::Context;
use crate::scope_args::{ScopeArg, ScopeFilterArg};

#[derive(Debug, clap::Subcommand)]
pub enum MemoryCommand {
    /// List memories (unparseable files are listed with their error)
    List {
        #[arg(long, value_enum, default_value_t)]
        scope: ScopeFilterArg,
    },
    /// Print one memory (without --scope, the project's copy shadows the user's)
    Get {
        name: String,
        #[arg(long, value_enum)]
        scope: Option<ScopeArg>,
    },
    /// Create or overwrite a memory; the prior version is archived
    Save(SaveArgs),
    /// Archive and remove a memory (restore it with `memory archive restore`)
    Forget {
        name: String,
        #[arg(long, value_enum)]
        scope: ScopeArg,
    },
    /// Rename a memory: its archived history, [[links]] and retrieval cases follow
    Rename(super::memory_rename::RenameArgs),
    /// The review inbox: duplicates, conflicts, stale and expired memories, and what to do
    Review(super::memory_review::ReviewArgs),
    /// Your own agent CLI proposes memories from past sessions; proposals wait in the review inbox
    Distill(super::memory_distill::DistillArgs),
    /// Rank memories against a query, as `compose` would
    Search(super::memory_search::SearchArgs),
    /// Archived versions: list, restore, prune
    #[command(subcommand)]
    Archive(ArchiveCommand),
    /// Bring every memory's embedding sidecar (.vec) up to date (incremental)
    Reindex(super::reindex::ReindexArgs),
    /// Run your retrieval cases (memory/tests.toml per scope); exit 1 with the ranks found on failure
    Test,
    /// Memories' rules, checked at agents' tool calls: list, test over past sessions, on, off
    #[command(subcommand)]
    Enforce(super::memory_enforce::EnforceCommand),
    /// Move a project memory to the team's (.ambry/memory/ in the repository), with its history
    Promote { name: String },
    /// Move a team memory back to your own project scope, with its history
    Demote { name: String },
}

#[derive(Debug, clap::Args)]
pub struct SaveArgs {
    pub name: String,
    /// A label that groups memories: user, feedback, project, reference, or your own
    #[arg(long = "type", value_name = "TYPE")]
    pub kind: String,
    /// One line saying what this memory is for (shown in MEMORY.md)
    #[arg(long)]
    pub description: String,
    /// Where to save it (default: user)
    #[arg(long, value_enum, default_value = "user")]
    pub scope: ScopeArg,
    /// The body as an argument
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,
    /// Read the body from a file
    #[arg(long, value_name = "FILE")]
    pub body_file: Option<PathBuf>,
    /// Comma-separated tags
    #[arg(long, value_delimiter = ',')]
    pub tags: Vec<String>,
    /// A rule checked at agents' tool calls (DESIGN §16): the tools it covers as the agent names
    /// them (Bash, Edit, Write…; comma-separated; `*` for any)
    #[arg(long, value_name = "TOOL", value_delimiter = ',', requires_all = ["enforce_match", "enforce_action"])]
    pub enforce_tool: Vec<String>,
    /// The rule's regex over the tool input as text (a shell call's command line)
    #[arg(long, value_name = "REGEX", requires = "enforce_tool")]
    pub enforce_match: Option<String>,
    /// What happens to a matching call: deny (refused, the memory is the reason) or remind
    /// (it runs, the memory is added to the context)
    #[arg(long, value_name = "ACTION", requires = "enforce_tool")]
    pub enforce_action: Option<String>,
    /// Remove the memory's rule
    #[arg(long, conflicts_with = "enforce_tool")]
    pub no_enforce: bool,
    /// A situation or prompt in which the memory is needed, in the words you would use then
    /// (repeat for each, 2–5 is plenty); without it a saved memory keeps its phrases
    #[arg(long, value_name = "PHRASE", conflicts_with = "no_when")]
    pub when: Vec<String>,
    /// Remove the memory's `when` phrases
    #[arg(long)]
    pub no_when: bool,
}

pub fn run(ctx: &Context, cmd: MemoryCommand) -> Result<()> {
    match cmd {
        MemoryCommand::List { scope } => list(ctx, scope),
        MemoryCommand::Get { name, scope } => get(ctx, &name, scope),
        MemoryCommand::Save(args) => save(ctx, args),
        MemoryCommand::Forget { name, scope } => forget(ctx, &name, scope),
        MemoryCommand::Rename(args) => super::memory_rename::run(ctx, args),
        MemoryCommand::Review(args) => super::memory_review::run(ctx, args),
        MemoryCommand::Distill(args) => super::memory_distill::run(ctx, args),
        MemoryCommand::Search(args) => super::memory_search::run(ctx, args),
        MemoryCommand::Archive(cmd) => archive::run(ctx, cmd),
        MemoryCommand::Reindex(args) => super::reindex::run(ctx, args),
        MemoryCommand::Test => super::memory_test::run(ctx),
        MemoryCommand::Enforce(cmd) => super::memory_enforce::run(ctx, cmd),
        MemoryCommand::Promote { name } => super::trust::moved(ctx, &name, Scope::Team),
        MemoryCommand::Demote { name } => super::trust::moved(ctx, &name, Scope::Project),
    }
}

fn list(ctx: &Context, scope: ScopeFilterArg) -> Result<()> {
    let files = ctx
        .workspace
        .list_with_usage(&ctx.place(), scope.into(), ctx.now())?;
    if ctx.json {
        return ctx.print_json(&files);
    }
    if files.is_empty() {
        println!(
            "no memories yet; save one with `ambry memory save NAME --type T --description D`"
        );
        return Ok(());
    }
    // A file name may hold escape sequences (anyone can create a file); they are shown as text.
    let shown = |name: &str| ambry_core::escape_controls(name).into_owned();
    let width = files
        .iter()
        .map(|f| shown(&f.name).len())
        .max()
        .unwrap_or(0);
    for f in &files {
        match (&f.error, &f.kind, &f.description) {
            (Some(e), _, _) => println!(
                "{:<7} {:<width$}  {:<10} does not parse: {e}",
                f.scope,
                shown(&f.name),
                "!"
            ),
            (None, kind, description) => println!(
                "{:<7} {:<width$}  {:<10} {}{}",
                f.scope,
                shown(&f.name),
                kind.as_deref().unwrap_or(""),
                description.as_deref().unwrap_or(""),
                f.retired
                    .as_ref()
                    .map(|why| format!(" [{why}]"))
                    .unwrap_or_default()
            ),
        }
    }
    Ok(())
}

fn get(ctx: &Context, name: &str, scope: Option<ScopeArg>) -> Result<()> {
    let place = ctx.place();
    // Whoever runs `memory get` is mostly an agent's shell tool.
    let memory: Memory = ctx.workspace.read_memory(
        &place,
        scope.map(Into::into),
        name,
        Reader::Agent,
        ctx.now(),
    )?;
    if ctx.json {
        return ctx.print_json(&memory);
    }
    let bytes = read_regular_unlinked(&memory.path, MEMORY_FILE_MAX)
        .map_err(|refusal| anyhow!("{} {refusal}", memory.path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    print!("{text}");
    Ok(())
}

/// A body read with the body limit + 1 byte at most: `/dev/zero` or a 2 GB file is refused
/// without being read whole, a device, FIFO, socket or directory without being read at all.
fn body_text(read: Result<Vec<u8>, ReadRefusal>, what: &str) -> Result<String> {
    let bytes = read.map_err(|refusal| match refusal {
        ReadRefusal::TooLarge { .. } => anyhow!(
            "{what} is over the {BODY_MAX}-byte (256 KiB) body limit; keep bulky content in a file and store a pointer to it"
        ),
        ReadRefusal::NotAFile(kind) => anyhow!(
            "{what} is {kind}, not a regular file; nothing was saved. Name a regular file, or pipe the body on stdin"
        ),
        other => anyhow!("{what} {other}"),
    })?;
    String::from_utf8(bytes).map_err(|_| anyhow!("{what} is not UTF-8 text"))
}

/// The text of a `--body-file`: a regular file only, at most the body limit.
pub(crate) fn body_file_text(path: &std::path::Path) -> Result<String> {
    body_text(
        read_named_input(path, BODY_MAX as u64),
        &format!("--body-file {}", path.display()),
    )
}

fn save(ctx: &Context, args: SaveArgs) -> Result<()> {
    let body = match (&args.body, &args.body_file) {
        (Some(body), _) => body.clone(),
        (None, Some(path)) => body_file_text(path)?,
        (None, None) => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                return Err(ambry_core::InvalidRequest(
                    "no body given: pass --body TEXT, --body-file FILE, or pipe it on stdin".into(),
                )
                .into());
            }
            body_text(
                read_stream(stdin.lock(), BODY_MAX as u64),
                "the body on stdin",
            )?
        }
    };
    let scope: Scope = args.scope.into();
    let draft = MemoryDraft {
        name: args.name,
        kind: args.kind,
        description: args.description,
        body,
        tags: args.tags,
    };
    let rule = match (args.no_enforce, args.enforce_tool.is_empty()) {
        (true, _) => ambry_core::RuleEdit::Remove,
        (false, true) => ambry_core::RuleEdit::Keep,
        (false, false) => ambry_core::RuleEdit::Set(ambry_core::Enforce {
            tools: args.enforce_tool,
            pattern: args.enforce_match.unwrap_or_default(),
            action: args.enforce_action.unwrap_or_default(),
            status: ambry_core::RuleStatus::On,
        }),
    };
    let when = match (args.no_when, args.when.is_empty()) {
        (true, _) => Some(Vec::new()),
        (false, true) => None,
        (false, false) => Some(args.when),
    };
    let saved = ctx.workspace.save_ruled_when(
        &ctx.place(),
        scope,
        draft,
        &rule,
        when.as_deref(),
        ctx.now(),
    )?;
    let outcome = saved.outcome;
    if ctx.json {
        return ctx.print_json(&serde_json::json!({
            "scope": scope,
            "name": outcome.memory.name,
            "type": outcome.memory.kind,
            "path": outcome.memory.path,
            "created": outcome.created,
            "changed": outcome.changed,
            "archived": outcome.archived,
            "vector": saved.vector,
            "enforce": outcome.memory.lifecycle.enforce,
            "when": outcome.memory.lifecycle.when,
        }));
    }
    let what = match (outcome.created, outcome.changed) {
        (true, _) => "created".to_string(),
        (false, false) => "unchanged".to_string(),
        (false, true) => format!(
            "updated; prior version archived to {}",
            outcome
                .archived
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ),
    };
    println!("saved {scope}/{} ({what})", outcome.memory.name);
    if let ambry_core::VectorStatus::Skipped { reason } = &saved.vector {
        println!("vector skipped: {reason}");
    }
    Ok(())
}

fn forget(ctx: &Context, name: &str, scope: ScopeArg) -> Result<()> {
    let outcome = ctx
        .workspace
        .forget(&ctx.place(), scope.into(), name, ctx.now())?;
    if ctx.json {
        return ctx.print_json(&outcome);
    }
    println!(
        "forgot {}/{name}; archived to {}\nundo: ambry memory archive restore {name} {} --scope {}",
        outcome.scope,
        outcome.archived.display(),
        outcome.version,
        outcome.scope
    );
    Ok(())
}
