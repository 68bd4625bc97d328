//! The session index (DESIGN §7): full-text search over past agent transcripts.
//!
//! Owns: reading Claude Code, Codex and Ambry-native transcripts, the incremental FTS5 index
//! in `index.sqlite` (its own tables only), recall queries, readable transcripts, and the
//! filesystem watcher that keeps the index current.
//! Deliberately does not: read the process environment (callers resolve the source roots),
//! print, or know about Tauri; the shell maps `SessionChange` to its own events.

mod boilerplate;
mod candidate_filter;
mod claude;
mod codex;
mod db;
mod discover;
mod error;
mod health;
mod index;
mod line;
mod mask_stored;
mod native;
mod parse;
mod recall;
mod roots;
mod rows;
mod runs;
mod session_ranking;
mod tail;
mod transcript;
mod types;
mod vault;
mod vectors;
mod watcher;
mod words_first;
mod writer_turn;

pub use crate::config::SessionSource as SourceKind;
pub use crate::config::SessionsConfig;
pub use error::SessionError;
pub use health::session_checks;
pub use index::SessionIndex;
pub use parse::{parse_transcript_lines, LineCounts};
pub use roots::SourceRoots;
pub use runs::{
    group_recall_runs, group_runs, parent_of, RecallGroup, RecallRun, RunKind, RunOf, SessionGroup,
    SessionRun,
};
pub use session_ranking::{QueryVector, SessionWeights, DEFAULT_WEIGHTS};
pub use transcript::IndexStats;
pub use types::{
    FileProblem, IndexProgress, IndexSummary, RecallHit, RecallQuery, RecallTurn, SessionChange,
    SessionMeta, SnippetPart, Transcript, Turn,
};
pub use vault::{VaultPruneReport, VaultedFile};
pub use vectors::{chunks_of, FillError, VectorFill};
pub use watcher::{SessionWatcher, UnixClock};
pub use words_first::WordsSuffice;
pub(crate) use writer_turn::WriterTurn;
