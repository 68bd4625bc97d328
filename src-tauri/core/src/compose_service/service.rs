//! The composer behind `ambry compose`, in-process or long-lived: a workspace answering
//! compose calls exactly as a fresh process would (same config file, same project resolution,
//! same caps, same model).
//!
//! Owns: checking that a call is for this service's home and models directory, and turning
//! its outcome into a protocol response.
//! Deliberately does not: touch sockets (`serving` does), hold caches or a model of its own
//! (the workspace does), or read the environment.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::protocol::{Call, ComposeCall, ErrorReply, Reply, Request, Response, ServiceStatus};
use super::Refusal;
use crate::workspace::Workspace;
use crate::workspace::WorkspaceError;
use ambry_compose::compose::hook::ContextRequest;
use ambry_compose::compose::Composition;

/// Answers compose calls for one workspace; in the app, the same workspace its window uses
/// (one corpus, one vector cache, one model).
pub struct ComposeService {
    workspace: Arc<Workspace>,
    /// The home and models directory as absolute paths, which requests must name.
    home: PathBuf,
    models_dir: PathBuf,
}

impl ComposeService {
    pub fn new(workspace: Arc<Workspace>) -> Self {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let home = absolute(workspace.home().root());
        let models_dir = absolute(&workspace.models_dir());
        ComposeService {
            workspace,
            home,
            models_dir,
        }
    }

    pub fn workspace(&self) -> &Arc<Workspace> {
        &self.workspace
    }

    /// One moment of a context (`cwd` picks the project). Fails only when `config.toml` is
    /// invalid and the call is not a hook's (the in-process path reports the same error).
    pub fn compose(
        &self,
        cwd: &Path,
        request: &ContextRequest,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Composition, WorkspaceError> {
        self.workspace.compose_at(cwd, request, now)
    }

    /// Loads what the first call would, so it is as fast as the ones after it.
    pub fn warm_up(&self) {
        self.workspace.warm_up();
    }

    /// Answers one request line; never fails, never panics on bad input.
    pub fn respond(&self, line: &str) -> Response {
        match super::protocol::parse_request(line) {
            Ok(request) => self.handle(request),
            Err(e) => Response::new(Reply::Error(e)),
        }
    }

    pub fn handle(&self, request: Request) -> Response {
        match request.call {
            Call::Status => Response::new(Reply::Status(self.status())),
            Call::Compose(call) => self.handle_compose(call),
            Call::Recall(call) => self.handle_recall(call),
            Call::CheckTool(call) => self.handle_check(call),
        }
    }

    pub fn status(&self) -> ServiceStatus {
        let (composed, model_loaded) = self.workspace.compose_stats();
        ServiceStatus {
            pid: std::process::id(),
            home: self.home.clone(),
            models_dir: self.models_dir.clone(),
            composed,
            model_loaded,
        }
    }

    fn handle_check(&self, call: super::protocol::ToolCheckCall) -> Response {
        if call.home != self.home {
            return Response::refused(&Refusal::HomeMismatch {
                ours: self.home.clone(),
                theirs: call.home,
            });
        }
        if !call.cwd.is_absolute() {
            return Response::refused(&Refusal::RelativeCwd { cwd: call.cwd });
        }
        let verdict = self
            .workspace
            .check_tool_call(&call.cwd, &call.check, call.now);
        Response::new(Reply::Checked(verdict))
    }

    fn handle_compose(&self, call: ComposeCall) -> Response {
        if call.home != self.home {
            return Response::refused(&Refusal::HomeMismatch {
                ours: self.home.clone(),
                theirs: call.home,
            });
        }
        if call.models_dir != self.models_dir {
            return Response::refused(&Refusal::ModelsDirMismatch {
                ours: self.models_dir.clone(),
                theirs: call.models_dir,
            });
        }
        if !call.cwd.is_absolute() {
            return Response::refused(&Refusal::RelativeCwd { cwd: call.cwd });
        }
        match self.compose(&call.cwd, &call.request, call.now) {
            Ok(composition) => Response::new(Reply::Composed(Box::new(composition))),
            Err(e) => Response::new(Reply::Error(ErrorReply::of(&e))),
        }
    }
}
