//! `ambry recall` served by a running service: the same `Workspace::recall` a fresh process
//! would run, but with the model already loaded, so a question that needs meaning does not pay
//! for loading it.
//!
//! Owns: the recall request and answer on the wire, and the rule that a service answers only a
//! recall it would answer exactly as the client would in-process — same home, same models
//! directory, same transcript folders (the client's environment names them; an index-first
//! recall reads them).
//! Deliberately does not: rank or index (the workspace does), or decide to fall back (the
//! client answers in-process on any error, including these refusals).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::protocol::{ErrorReply, Reply, Response};
use super::{ComposeService, Refusal};
use crate::sessions::{RecallHit, RecallQuery, SourceKind, SourceRoots};

/// One recall, as `ambry recall` would run it in-process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallCall {
    pub home: PathBuf,
    pub models_dir: PathBuf,
    /// The transcript folders of the client's environment, per source.
    pub claude_root: Option<PathBuf>,
    pub codex_root: Option<PathBuf>,
    pub ambry_root: PathBuf,
    pub text: String,
    pub limit: usize,
    pub source: Option<SourceKind>,
    /// Absolute, when the recall is limited to a folder.
    pub cwd_prefix: Option<PathBuf>,
    /// Bring the index up to date before searching (`ambry recall` without `--no-index`).
    pub index_first: bool,
    /// The client's clock: what indexing finds gone is dated as the in-process recall would.
    pub now: chrono::DateTime<chrono::Utc>,
}

impl RecallCall {
    /// `query` as `home`'s workspace would run it with `roots` and `models_dir` (all absolute).
    pub fn new(
        home: PathBuf,
        models_dir: PathBuf,
        roots: SourceRoots,
        query: &RecallQuery,
        index_first: bool,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Self {
        let roots = absolute_roots(roots);
        RecallCall {
            home,
            models_dir,
            claude_root: roots.claude,
            codex_root: roots.codex,
            ambry_root: roots.ambry,
            text: query.text.clone(),
            limit: query.limit,
            source: query.source,
            cwd_prefix: query.cwd_prefix.clone(),
            index_first,
            now,
        }
    }

    pub fn query(&self) -> RecallQuery {
        RecallQuery {
            text: self.text.clone(),
            limit: self.limit,
            source: self.source,
            cwd_prefix: self.cwd_prefix.clone(),
        }
    }

    fn roots(&self) -> SourceRoots {
        SourceRoots {
            claude: self.claude_root.clone(),
            codex: self.codex_root.clone(),
            ambry: self.ambry_root.clone(),
        }
    }
}

/// `roots` with each folder absolute (as is when it cannot be made so), so that a client and a
/// service that name one folder differently still agree.
fn absolute_roots(roots: SourceRoots) -> SourceRoots {
    let absolute = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
    SourceRoots {
        claude: roots.claude.map(absolute),
        codex: roots.codex.map(absolute),
        ambry: absolute(roots.ambry),
    }
}

/// What `Workspace::recall` returned: the sessions, and the notes said on stderr.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallAnswer {
    pub hits: Vec<RecallHit>,
    pub notes: Vec<String>,
}

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
