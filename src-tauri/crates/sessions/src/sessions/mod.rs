//! The session index (DESIGN §7): full-text search over past agent transcripts.
//!
//! Owns: reading Claude Code, Codex and Ambry-native transcripts, the incremental FTS5 index
//! in `index.sqlite` (its own tables only), recall queries, readable transcripts, and the
//! filesystem watcher that keeps the index current.
//! Grouped by job, each file with one owner: `sources` reads transcripts, `store` keeps the
//! session tables, `recall`, `session_ranking`, `candidate_filter`, `vectors` and `words_first` search them,
//! `watcher` keeps them current. Dependencies run one way: recall and the watcher use the
//! store, the store uses the sources, and the sources use neither.
//! Deliberately does not: read the process environment (callers resolve the source roots),
//! print, or know about Tauri; the shell maps `SessionChange` to its own events.

mod candidate_filter;
mod error;
pub mod last_exchange;
mod recall;
mod session_ranking;
mod sources;
mod store;
mod types;
mod vectors;
mod watcher;
mod words_first;

pub use ambry_store::config::SessionSource as SourceKind;
pub use ambry_store::config::SessionsConfig;
pub use error::SessionError;
pub use session_ranking::QueryVector;
pub use session_ranking::{SessionWeights, DEFAULT_WEIGHTS};
pub use sources::boilerplate::scrub;
pub use sources::parse::{parse_transcript_lines, LineCounts};
pub use sources::roots::SourceRoots;
pub use sources::runs::{group_recall_runs, group_runs, RecallGroup, SessionGroup};
pub use sources::runs::{parent_of, RecallRun, RunKind, RunOf, SessionRun};
pub use store::health::session_checks;
pub use store::index::SessionIndex;
pub use store::transcript::IndexStats;
pub use store::vault::{VaultPruneReport, VaultedFile};
pub use store::writer_turn::WriterTurn;
pub use types::{
    FileProblem, IndexProgress, IndexSummary, RecallHit, RecallQuery, RecallTurn, SessionChange,
    SessionMeta, SnippetPart, Transcript, Turn,
};
pub use vectors::chunks_of;
pub use vectors::{FillError, VectorFill};
pub use watcher::SessionWatcher;
pub use watcher::UnixClock;
pub use words_first::{WordsFirst, WordsSuffice};
