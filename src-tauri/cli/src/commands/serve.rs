//! `engram serve`: the compose service in the foreground, for people without the desktop app
//! (which runs the same service itself), and `engram serve --status` to ask a running one.
//!
//! Owns: starting core's service on this home with the CLI's models directory (releasing the
//! model when idle), stopping it on
//! Ctrl-C / SIGTERM / SIGHUP (the socket is removed on the way out), and printing the status.
//! Deliberately does not: daemonize; run it under a terminal, a user service manager or `&`.

use std::sync::mpsc;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use engram_core::compose_service::{call, spawn_compose_service, Call, Reply, Request};
use engram_core::embed::release_idle_model_in_background;

use super::embedding::models_dir;
use crate::context::Context;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Report on the service running for this home instead of starting one (exit 1 if none)
    #[arg(long)]
    pub status: bool,
    /// Release the embedding model after this many seconds without a request (it loads again,
    /// in about half a second, on the next one)
    #[arg(long, env = "ENGRAM_MODEL_IDLE_SECS", default_value_t = 600, value_name = "SECONDS")]
    pub model_idle_secs: u64,
}

pub fn run(ctx: &Context, args: ServeArgs) -> Result<()> {
    if args.status {
        return status(ctx);
    }
    let handle = spawn_compose_service(ctx.home.clone(), models_dir(&ctx.home))?;
    release_idle_model_in_background(Duration::from_secs(args.model_idle_secs.max(1)));
    let (stop_tx, stop_rx) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = stop_tx.send(());
    })
    .context("cannot install the Ctrl-C / SIGTERM handler")?;
    eprintln!("engram: compose service listening on {} (Ctrl-C to stop)", handle.socket().display());
    loop {
        match stop_rx.recv_timeout(Duration::from_millis(500)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) if !handle.is_running() => {
                bail!("the compose service stopped unexpectedly; `engram compose` keeps working in-process")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    handle.stop();
    eprintln!("engram: compose service stopped");
    Ok(())
}

fn status(ctx: &Context) -> Result<()> {
    let reply = call(&ctx.home, &Request::new(Call::Status), Duration::from_secs(2))
        .with_context(|| format!("no compose service is running for {}", ctx.home.root().display()))?;
    let Reply::Status(status) = reply else { bail!("the compose service answered a status request with {reply:?}") };
    if ctx.json {
        return ctx.print_json(&status);
    }
    println!("serving:     {}", status.home.display());
    println!("pid:         {}", status.pid);
    println!("models:      {}", status.models_dir.display());
    println!("model:       {}", status.model_loaded.as_deref().unwrap_or("not loaded"));
    println!("composed:    {}", status.composed);
    Ok(())
}
