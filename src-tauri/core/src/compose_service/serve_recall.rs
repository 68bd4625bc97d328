//! `ambry recall` served by a running service: the same `Workspace::recall` a fresh process
//! would run, but with the model already loaded, so a question that needs meaning does not pay
//! for loading it.
//!
//! Owns: the rule that a service answers only a recall it would answer exactly as the client
//! would in-process — same home, same models directory, same transcript folders (the client's
//! environment names them; an index-first recall reads them).
//! Deliberately does not: rank or index (the workspace does), or decide to fall back (the
//! client answers in-process on any error, including these refusals).

use super::protocol::{ErrorReply, Reply, Response};
use super::recall_call::{absolute_roots, RecallAnswer, RecallCall};
use super::{ComposeService, Refusal};

impl ComposeService {
    pub(super) fn handle_recall(&self, call: RecallCall) -> Response {
        let workspace = self.workspace();
        let absolute = |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.into());
        let (home, models_dir) = (
            absolute(workspace.home().root()),
            absolute(&workspace.models_dir()),
        );
        if call.home != home {
            return Response::refused(&Refusal::HomeMismatch {
                ours: home,
                theirs: call.home,
            });
        }
        if call.models_dir != models_dir {
            return Response::refused(&Refusal::ModelsDirMismatch {
                ours: models_dir,
                theirs: call.models_dir,
            });
        }
        let ours = absolute_roots(workspace.session_roots());
        if call.roots() != ours {
            return Response::refused(&Refusal::SessionRootsMismatch {
                ours: format!("{ours:?}"),
                theirs: format!("{:?}", call.roots()),
            });
        }
        if call.cwd_prefix.as_ref().is_some_and(|p| !p.is_absolute()) {
            return Response::refused(&Refusal::RelativeCwd {
                cwd: call.cwd_prefix.unwrap_or_default(),
            });
        }
        match workspace.recall(&call.query(), call.index_first, call.now) {
            Ok((hits, notes)) => Response::new(Reply::Recalled(RecallAnswer { hits, notes })),
            Err(e) => Response::new(Reply::Error(ErrorReply::of(&e))),
        }
    }
}
