//! Where `ambry recall` gets its answer: a running service for this home when there is one (its
//! model already loaded), else this process.
//!
//! Owns: asking the service (the whole exchange bounded, as compose's client) and answering
//! in-process on any failure — no service, a stale socket, a timeout, a refusal (another home,
//! models directory or transcript folders), a protocol or version error — plus
//! `AMBRY_NO_SERVICE=1`, which skips the service. Both paths run core's `Workspace::recall`, so
//! they print the same answer.
//! When no service is there at all and answering loaded the model (the question needed
//! meaning), it starts one as compose does, after answering: the next question by meaning is
//! then served warm instead of loading the model again (≈ 0.3 s). A question words answer
//! starts nothing: it is as fast in-process.
//! Deliberately does not: print; the recall command does.

use std::time::Duration;

use ambry_core::{
    call, Call, RecallAnswer, RecallCall, RecallHit, RecallQuery, Reply, Request, ServiceError,
};
use anyhow::Result;

use crate::context::Context;

/// A warm service answers in milliseconds; past this the in-process path is the faster one.
const SERVICE_TIMEOUT: Duration = Duration::from_secs(2);

/// The sessions and the notes of one recall.
pub fn recall(
    ctx: &Context,
    query: &RecallQuery,
    index_first: bool,
) -> Result<(Vec<RecallHit>, Vec<String>)> {
    let now = ctx.now();
    // Started after answering when there is no service at all and answering loaded the model.
    let mut start_one = false;
    if ctx.workspace.env().no_service {
        tracing::debug!("recall served by: this process (AMBRY_NO_SERVICE is set)");
    } else {
        match from_service(ctx, query, index_first, now) {
            Ok(answer) => {
                tracing::debug!("recall served by: service");
                return Ok((answer.hits, answer.notes));
            }
            Err(e) => {
                tracing::debug!("recall served by: this process ({e})");
                start_one = matches!(e, ServiceError::Unreachable { .. })
                    && ctx.workspace.env().autostart_service;
            }
        }
    }
    let answer = ctx.workspace.recall(query, index_first, now)?;
    // The workspace holds a model only once something asked for meaning: here, this recall.
    if start_one && ctx.workspace.compose_stats().1.is_some() {
        crate::compose_client::start_service(ctx);
    }
    Ok(answer)
}

fn from_service(
    ctx: &Context,
    query: &RecallQuery,
    index_first: bool,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<RecallAnswer, ServiceError> {
    let absolute = |p: &std::path::Path| {
        std::path::absolute(p).map_err(|source| ServiceError::Io {
            action: "resolve",
            path: p.into(),
            source,
        })
    };
    let query = RecallQuery {
        cwd_prefix: match &query.cwd_prefix {
            Some(dir) => Some(absolute(dir)?),
            None => None,
        },
        ..query.clone()
    };
    let request = Request::new(Call::Recall(RecallCall::new(
        absolute(ctx.home().root())?,
        absolute(&ctx.workspace.models_dir())?,
        ctx.workspace.session_roots(),
        &query,
        index_first,
        now,
    )));
    match call(ctx.home(), &request, SERVICE_TIMEOUT)? {
        Reply::Recalled(answer) => Ok(answer),
        other => Err(ServiceError::Protocol {
            reason: format!("expected a recall answer, got {other:?}"),
        }),
    }
}
