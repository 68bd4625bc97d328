//! The recall request and answer on the wire (`Call::Recall`, `Reply::Recalled`): everything
//! that decides a recall's answer besides the home's files, so a service can tell whether it
//! would answer exactly as the client would in-process.
//!
//! Owns: the two types, and the transcript folders in their absolute form (the one both ends
//! compare).
//! Deliberately does not: answer (`serve_recall` does) or move bytes (`socket` does).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use ambry_sessions::sessions::{RecallHit, RecallQuery, SourceKind, SourceRoots};

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

    pub(super) fn roots(&self) -> SourceRoots {
        SourceRoots {
            claude: self.claude_root.clone(),
            codex: self.codex_root.clone(),
            ambry: self.ambry_root.clone(),
        }
    }
}

/// `roots` with each folder absolute (as is when it cannot be made so), so that a client and a
/// service that name one folder differently still agree.
pub(super) fn absolute_roots(roots: SourceRoots) -> SourceRoots {
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
