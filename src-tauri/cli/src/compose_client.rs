//! Where `engram compose` gets its block: a running compose service when there is one, else
//! this process.
//!
//! Owns: asking the service of this home (bounded wait) and falling back to composing
//! in-process on any failure — no service, a stale socket, a timeout, a protocol error, a
//! service of another version or with another models directory — plus `ENGRAM_NO_SERVICE=1`,
//! which skips the service. Both paths run core's `ComposeService`, so they print the same block.
//! Deliberately does not: print; the compose command does.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use engram_core::compose::Composition;
use engram_core::compose_service::{call, Call, ComposeCall, ComposeService, Reply, Request, ServiceError};

use crate::commands::embedding::models_dir;
use crate::context::Context;

/// A warm service answers in milliseconds; past this the in-process path is the faster one.
const SERVICE_TIMEOUT: Duration = Duration::from_secs(2);

/// Set to anything but empty or `0` to compose in-process even when a service runs.
pub const NO_SERVICE_ENV: &str = "ENGRAM_NO_SERVICE";

pub fn composition(ctx: &Context, cwd: &Path, query: &str, top_k: Option<usize>, max_bytes: Option<usize>) -> Result<Composition> {
    if service_allowed() {
        match from_service(ctx, cwd, query, top_k, max_bytes) {
            Ok(composition) => {
                tracing::debug!("served by: service");
                return Ok(composition);
            }
            Err(e) => tracing::debug!("served by: this process ({e})"),
        }
    } else {
        tracing::debug!("served by: this process ({NO_SERVICE_ENV} is set)");
    }
    let mut composer = ComposeService::new(ctx.home.clone(), models_dir(&ctx.home));
    Ok(composer.compose(cwd, query, top_k, max_bytes)?)
}

fn service_allowed() -> bool {
    std::env::var_os(NO_SERVICE_ENV).is_none_or(|v| v.is_empty() || v == "0")
}

fn from_service(ctx: &Context, cwd: &Path, query: &str, top_k: Option<usize>, max_bytes: Option<usize>) -> Result<Composition, ServiceError> {
    let absolute = |p: &Path| {
        std::path::absolute(p).map_err(|source| ServiceError::Io { action: "resolve", path: p.into(), source })
    };
    let request = Request::new(Call::Compose(ComposeCall {
        home: absolute(ctx.home.root())?,
        models_dir: absolute(&models_dir(&ctx.home))?,
        cwd: absolute(cwd)?,
        query: query.to_string(),
        top_k,
        max_bytes,
    }));
    match call(&ctx.home, &request, SERVICE_TIMEOUT)? {
        Reply::Composed(composition) => Ok(composition),
        other => Err(ServiceError::Protocol { reason: format!("expected a composition, got {other:?}") }),
    }
}
