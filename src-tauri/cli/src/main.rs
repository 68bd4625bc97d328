//! The `ambry` command: parses arguments, calls ambry-core, prints the result.
//!
//! Owns: the command tree and global flags (DESIGN §9), exit codes (1 failure, 2 usage).
//! Deliberately does not: hold any rule about memories, ranking or sessions; that is core's.

// Every `println!`/`print!` below this point (all modules declared after it) goes through
// `output`, so a closed pipe ends the command quietly instead of panicking.
macro_rules! println {
    () => { $crate::output::write_stdout(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::output::write_stdout(format_args!($($arg)*), true) };
}
macro_rules! print {
    ($($arg:tt)*) => { $crate::output::write_stdout(format_args!($($arg)*), false) };
}

mod commands;
mod compose_client;
mod context;
mod hook_stdin;
mod output;
mod recall_client;
mod scope_args;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::context::Context;

#[derive(Debug, Parser)]
#[command(
    name = "ambry",
    version,
    about = "Long-term memory for coding agents",
    propagate_version = true
)]
struct Cli {
    /// Ambry home (default: $AMBRY_HOME, else ~/.ambry)
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Directory used to resolve the project (default: the current directory)
    #[arg(long, global = true, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Machine-readable output on stdout
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create USER.md or the project's .ambry/AMBRY.md skeleton (never overwrites)
    Init(commands::init::InitArgs),
    /// List, read, save, forget, search and reindex memories
    #[command(subcommand)]
    Memory(commands::memory::MemoryCommand),
    /// Print the memory block for one agent turn
    Compose(commands::compose::ComposeArgs),
    /// Index past agent transcripts
    #[command(subcommand)]
    Sessions(commands::sessions::SessionsCommand),
    /// Search past agent transcripts
    Recall(commands::sessions::RecallArgs),
    /// Paths, model and runtime status, index health
    Doctor(commands::doctor::DoctorArgs),
    /// Install Ambry's prompt hook and MCP server in an agent's own configuration
    Connect(commands::connect::ConnectArgs),
    /// Remove exactly what `ambry connect` added
    Disconnect(commands::connect::ConnectArgs),
    /// Bring in what agents already remember
    #[command(subcommand)]
    Import(commands::import::ImportCommand),
    /// Keep the embedding model loaded and answer `ambry compose` over a local socket
    Serve(commands::serve::ServeArgs),
    /// Serve memory tools to an MCP client (Claude Code, Codex, …) over stdio
    Mcp,
    /// Trust this repository's team memory (.ambry/memory/), so agents are given it
    Trust(commands::trust::TrustArgs),
    /// Sync your memories across your machines through a git remote you own
    Sync(commands::sync::SyncArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("AMBRY_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let ctx = match Context::from_flags(cli.home, cli.cwd, cli.json) {
        Ok(ctx) => ctx,
        // A hook never breaks the agent's turn, whatever is wrong (a home that is a file as much
        // as a bad config): the problem goes to stderr and the hook exits 0 with nothing added.
        Err(e) if matches!(&cli.command, Command::Compose(args) if args.hook.is_some()) => {
            eprintln!("ambry: {e:#}");
            return ExitCode::SUCCESS;
        }
        Err(e) => return context::report_failure(&e),
    };
    // These work with the default [retrieval] settings when that table holds a bad value; say so.
    if matches!(
        cli.command,
        Command::Memory(_) | Command::Sessions(_) | Command::Recall(_)
    ) {
        if let Some(warning) = ctx.workspace.config_warning() {
            eprintln!("warning: {warning}");
        }
    }
    let result = match cli.command {
        Command::Init(args) => commands::init::run(&ctx, args),
        Command::Memory(cmd) => commands::memory::run(&ctx, cmd),
        Command::Compose(args) => commands::compose::run(&ctx, args),
        Command::Sessions(cmd) => commands::sessions::run(&ctx, cmd),
        Command::Recall(args) => commands::sessions::recall(&ctx, args),
        Command::Doctor(args) => commands::doctor::run(&ctx, args),
        Command::Serve(args) => commands::serve::run(&ctx, args),
        Command::Mcp => ambry_cli::mcp::run(ctx.workspace.clone(), ctx.cwd.clone()),
        Command::Import(cmd) => commands::import::run(&ctx, cmd),
        Command::Trust(args) => commands::trust::run(&ctx, args),
        Command::Sync(args) => commands::sync::run(&ctx, args),
        Command::Connect(args) => commands::connect::run(&ctx, args, ambry_core::Action::Connect),
        Command::Disconnect(args) => {
            commands::connect::run(&ctx, args, ambry_core::Action::Disconnect)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => context::report_failure(&e),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_tree_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
