//! `ambry serve`: the compose service in the foreground, for people without the desktop app
//! (which runs the same service itself), and `ambry serve --status` to ask a running one.
//!
//! Owns: starting core's service on this home with the CLI's models directory (releasing the
//! model when idle), watching the home so the caches need not check every file per call,
//! stopping it on
//! Ctrl-C / SIGTERM / SIGHUP (the socket is removed on the way out), and printing the status.
//! Deliberately does not: daemonize; run it under a terminal, a user service manager or `&`.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use ambry_core::release_idle_model_in_background;
use ambry_core::{call, spawn_compose_service, Call, Reply, Request};
use anyhow::{bail, Context as _, Result};

use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Report on the service running for this home instead of starting one (exit 1 if none)
    #[arg(long)]
    pub status: bool,
    /// Release the embedding model after this many seconds without a request (it loads again,
    /// in about half a second, on the next one)
    /// (default: $AMBRY_MODEL_IDLE_SECS, else 600)
    #[arg(long, value_name = "SECONDS")]
    pub model_idle_secs: Option<u64>,
    /// Exit after this many seconds without a compose call (the service `ambry compose` starts
    /// by itself uses 1800); also exits when the home directory is deleted, and does not start
    /// for a home that does not exist
    #[arg(long, value_name = "SECONDS")]
    pub idle_exit: Option<u64>,
}

/// A hand edit reaches the service's caches this long after it settles (a served turn then
/// sees it); nothing here redraws, so bursts need no longer window.
const HAND_EDIT_DEBOUNCE: Duration = Duration::from_millis(20);

pub fn run(ctx: &Context, args: ServeArgs) -> Result<()> {
    if args.status {
        return status(ctx);
    }
    // A service `ambry compose` or `ambry recall` starts (they pass --idle-exit) is for a home
    // that existed a moment ago. One deleted before the service got going (a test's temporary
    // home) is not created again only to be waited on for half an hour by nobody.
    if args.idle_exit.is_some() && !ctx.home().root().is_dir() {
        bail!(
            "{} does not exist; no service started for it",
            ctx.home().root().display()
        );
    }
    // Hand edits come through the watcher; without one, every call checks every file (slower,
    // never wrong).
    let _watcher = match ctx.workspace.watch_memories(HAND_EDIT_DEBOUNCE, |_| {}) {
        Ok(w) => Some(w),
        Err(e) => {
            eprintln!("ambry: {e}");
            None
        }
    };
    let handle = spawn_compose_service(ctx.workspace.clone())?;
    let idle = args
        .model_idle_secs
        .map(|s| Duration::from_secs(s.max(1)))
        .unwrap_or(ctx.workspace.env().model_idle);
    release_idle_model_in_background(idle);
    let (stop_tx, stop_rx) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = stop_tx.send(());
    })
    .context("cannot install the Ctrl-C / SIGTERM handler")?;
    eprintln!(
        "ambry: compose service listening on {} (Ctrl-C to stop)",
        handle.socket().display()
    );
    let idle_exit = args.idle_exit.map(|s| Duration::from_secs(s.max(1)));
    let (mut seen, mut last_call) = (ctx.workspace.calls_answered(), Instant::now());
    loop {
        match stop_rx.recv_timeout(Duration::from_millis(500)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) if !handle.is_running() => {
                bail!("the compose service stopped unexpectedly; `ambry compose` keeps working in-process")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if !ctx.home().root().is_dir() {
            eprintln!("ambry: {} is gone; stopping", ctx.home().root().display());
            break;
        }
        let answered = ctx.workspace.calls_answered();
        if answered != seen {
            (seen, last_call) = (answered, Instant::now());
        } else if idle_exit.is_some_and(|idle| last_call.elapsed() >= idle) {
            eprintln!("ambry: no compose or recall call for {}s; stopping (the next `ambry compose` starts a service again)", last_call.elapsed().as_secs());
            break;
        }
    }
    handle.stop();
    eprintln!("ambry: compose service stopped");
    Ok(())
}

fn status(ctx: &Context) -> Result<()> {
    let reply = call(
        ctx.home(),
        &Request::new(Call::Status),
        Duration::from_secs(2),
    )
    .with_context(|| {
        format!(
            "no compose service is running for {}",
            ctx.home().root().display()
        )
    })?;
    let Reply::Status(status) = reply else {
        bail!("the compose service answered a status request with {reply:?}")
    };
    if ctx.json {
        return ctx.print_json(&status);
    }
    println!("serving:     {}", status.home.display());
    println!("pid:         {}", status.pid);
    println!("models:      {}", status.models_dir.display());
    println!(
        "model:       {}",
        status.model_loaded.as_deref().unwrap_or("not loaded")
    );
    println!("composed:    {}", status.composed);
    Ok(())
}
