//! Where `ambry compose` gets its block: a running compose service when there is one, else
//! this process.
//!
//! Owns: asking the service of this home (bounded wait) and falling back to composing
//! in-process on any failure — no service, a stale socket, a timeout, a protocol error, a
//! service of another version or with another models directory — plus `AMBRY_NO_SERVICE=1`,
//! which skips the service. Both paths run core's `ComposeService`, so they print the same block.
//! When no service is there at all, it starts one (`ambry serve --idle-exit`, detached, its
//! output in `AMBRY_HOME/serve.log`) after answering this turn itself, so the next turn is
//! served warm. Two racing starters are fine: the service's lock lets one of them serve.
//! An agent's turn has one deadline for all of it: the wait for the service gets only what the
//! payload's arrival left, and a hook composing in its own process loads the embedding model
//! only while no other hook of the home does (the rest rank with words), so a burst of hooks
//! with no service up adds one model to the machine, not one each.
//! Deliberately does not: print; the compose command does.

use std::path::Path;
use std::time::{Duration, Instant};

use ambry_core::Composition;
use ambry_core::ContextRequest;
use ambry_core::{call, Call, ComposeCall, ComposeService, Reply, Request, ServiceError};
use ambry_core::{ToolCheck, ToolCheckCall, ToolVerdict};
use anyhow::Result;

use crate::context::Context;

/// A warm service answers in milliseconds; past this the in-process path is the faster one.
const SERVICE_TIMEOUT: Duration = Duration::from_secs(2);

/// Set to anything but empty or `0` to compose in-process even when a service runs.
pub const NO_SERVICE_ENV: &str = "AMBRY_NO_SERVICE";

/// The composition for `request`. `deadline`: an agent's turn, which must be answered by then
/// (a person's `compose --query` has none and waits for the model).
pub fn composition(
    ctx: &Context,
    cwd: &Path,
    request: &ContextRequest,
    deadline: Option<Instant>,
) -> Result<Composition> {
    let now = chrono::Utc::now();
    if deadline.is_some() {
        ctx.workspace.load_the_model_only_when_alone();
    }
    let service_wait = match deadline {
        Some(deadline) => SERVICE_TIMEOUT.min(deadline.saturating_duration_since(Instant::now())),
        None => SERVICE_TIMEOUT,
    };
    if !ctx.workspace.env().no_service {
        match from_service(ctx, cwd, request, now, service_wait) {
            Ok(composition) => {
                tracing::debug!("served by: service");
                return Ok(composition);
            }
            Err(e) => {
                tracing::debug!("served by: this process ({e})");
                if matches!(e, ServiceError::Unreachable { .. })
                    && ctx.workspace.env().autostart_service
                {
                    let composition =
                        ComposeService::new(ctx.workspace.clone()).compose(cwd, request, now)?;
                    start_service(ctx);
                    return Ok(composition);
                }
            }
        }
    } else {
        tracing::debug!("served by: this process ({NO_SERVICE_ENV} is set)");
    }
    Ok(ComposeService::new(ctx.workspace.clone()).compose(cwd, request, now)?)
}

/// How long a tool call waits for a service's answer: a served check takes milliseconds; an
/// in-process one reads the rules from the corpus snapshot in `index.sqlite`.
const TOOL_CHECK_WAIT: Duration = Duration::from_millis(500);

/// The verdict on a tool call: from the service when one answers, else from this process.
/// Never fails (a problem is a note on the verdict and the call goes on).
pub fn tool_verdict(
    ctx: &Context,
    cwd: &Path,
    check: &ToolCheck,
    deadline: Instant,
) -> ToolVerdict {
    let now = chrono::Utc::now();
    if !ctx.workspace.env().no_service {
        let wait = TOOL_CHECK_WAIT.min(deadline.saturating_duration_since(Instant::now()));
        let served = (|| -> Result<ToolVerdict, ServiceError> {
            let absolute = |p: &Path| {
                std::path::absolute(p).map_err(|source| ServiceError::Io {
                    action: "resolve",
                    path: p.into(),
                    source,
                })
            };
            let request = Request::new(Call::CheckTool(ToolCheckCall {
                home: absolute(ctx.home().root())?,
                cwd: absolute(cwd)?,
                check: check.clone(),
                now,
            }));
            match call(ctx.home(), &request, wait)? {
                Reply::Checked(verdict) => Ok(verdict),
                other => Err(ServiceError::Protocol {
                    reason: format!("expected a verdict, got {other:?}"),
                }),
            }
        })();
        match served {
            Ok(verdict) => return verdict,
            Err(e) => tracing::debug!("checked by: this process ({e})"),
        }
    }
    ctx.workspace.check_tool_call(cwd, check, now)
}

/// How long a self-started service waits without a request before it exits.
const SELF_STARTED_IDLE_EXIT: &str = "1800";

/// Starts `ambry serve` for this home in the background, detached from this process (its own
/// session, so the agent's terminal closing does not stop it). Failing to start is only logged:
/// every turn is answered in-process anyway.
pub(crate) fn start_service(ctx: &Context) {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let ambry_home = ctx.home();
    let home = ambry_home.root();
    let started = (|| -> std::io::Result<()> {
        ambry_core::create_private_dir_all(home)?;
        // 0600 and never through a link: the log names files and memories of the home.
        let log = ambry_core::open_private(&ambry_home.serve_log(), true)?;
        let mut cmd = Command::new(std::env::current_exe()?);
        cmd.arg("--home")
            .arg(std::path::absolute(home)?)
            .args(["serve", "--idle-exit", SELF_STARTED_IDLE_EXIT])
            .current_dir(home)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .process_group(0);
        // The service's stdout is its log; the child is reaped by init once this process exits.
        cmd.spawn().map(drop)
    })();
    match started {
        Ok(()) => tracing::debug!("started a service for {}", home.display()),
        Err(e) => tracing::debug!("could not start a service for {}: {e}", home.display()),
    }
}

fn from_service(
    ctx: &Context,
    cwd: &Path,
    request: &ContextRequest,
    now: chrono::DateTime<chrono::Utc>,
    wait: Duration,
) -> Result<Composition, ServiceError> {
    let absolute = |p: &Path| {
        std::path::absolute(p).map_err(|source| ServiceError::Io {
            action: "resolve",
            path: p.into(),
            source,
        })
    };
    let request = Request::new(Call::Compose(ComposeCall {
        home: absolute(ctx.home().root())?,
        models_dir: absolute(&ctx.workspace.models_dir())?,
        cwd: absolute(cwd)?,
        request: request.clone(),
        now,
    }));
    match call(ctx.home(), &request, wait)? {
        Reply::Composed(composition) => Ok(*composition),
        other => Err(ServiceError::Protocol {
            reason: format!("expected a composition, got {other:?}"),
        }),
    }
}
