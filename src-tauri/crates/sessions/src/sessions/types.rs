//! The session index's public data: what callers ask for and what they get back.
//!
//! Owns: the serializable shapes the CLI prints and the app renders (DESIGN §9 `recall --json`).
//! Deliberately does not: compute anything.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::SourceKind;

/// One recall request. `text` is tried as an FTS5 query first (so `OR`, `"phrase"`, `prefix*`
/// work), then sanitized on a syntax error, then widened to any of its words when the strict
/// query finds fewer than `limit` messages.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallQuery {
    pub text: String,
    pub limit: usize,
    pub source: Option<SourceKind>,
    /// Only sessions whose working directory is this directory or inside it.
    pub cwd_prefix: Option<PathBuf>,
}

impl RecallQuery {
    pub fn new(text: impl Into<String>) -> Self {
        RecallQuery {
            text: text.into(),
            limit: 10,
            source: None,
            cwd_prefix: None,
        }
    }
}

/// A piece of a highlighted snippet: `hit` marks the words that matched the query. The app
/// renders these as text nodes (never as HTML); the CLI wraps hits in `[` `]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnippetPart {
    pub text: String,
    pub hit: bool,
}

/// One recalled session (DESIGN §9 `recall --json`): its metadata, and its best turn in the
/// flat fields (`ts`, `role`, `snippet`) so a reader of one line per hit sees why it matched;
/// `turns` has up to three of its best turns. From [`super::SessionIndex::recall_messages`] it
/// is one matching message instead (`turns` empty).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallHit {
    pub session_id: String,
    pub source: SourceKind,
    pub title: Option<String>,
    pub cwd: Option<String>,
    /// The message's timestamp (RFC 3339 as the transcript wrote it), when it has one.
    pub ts: Option<String>,
    /// `user`, `assistant` or `tool`.
    pub role: String,
    /// Matched words wrapped in `[` `]`, elided context marked `…`.
    pub snippet: String,
    /// The same snippet as structured parts, for safe rendering.
    pub snippet_parts: Vec<SnippetPart>,
    /// In (0, 1], top hit 1.0, falling with rank. Sessions with a message matching the whole
    /// query rank above those that match only some of a question's words (`widened`); within
    /// each, the session's text as a whole and its best message both count.
    pub score: f64,
    /// `true` when no message of the session matched the whole query (only some of its words).
    pub widened: bool,
    /// The transcript file.
    pub path: String,
    /// When the transcript file was found deleted (RFC 3339); the vault kept the session.
    pub source_removed_at: Option<String>,
    /// The session's best turns, best first (the first is the one in the flat fields).
    pub turns: Vec<RecallTurn>,
    /// How many of the session's messages match (at least those in `turns`; 0 when only the
    /// session as a whole matches, its words spread over several turns).
    pub matching_turns: u64,
}

/// One of a recalled session's best turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecallTurn {
    pub ts: Option<String>,
    pub role: String,
    pub snippet: String,
    pub snippet_parts: Vec<SnippetPart>,
}

/// One indexed session (one transcript file).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionMeta {
    pub session_id: String,
    pub source: SourceKind,
    pub path: String,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub model: Option<String>,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    pub messages: u64,
    /// When the transcript file was found deleted (RFC 3339); the vault kept the session.
    pub source_removed_at: Option<String>,
}

/// One readable turn of a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Turn {
    pub ts: Option<String>,
    /// `user`, `assistant`, `tool`, or `context`: text an agent injected into the user's side
    /// (a system reminder, a task notification, a slash command's echo), which the person did
    /// not type.
    pub role: String,
    pub text: String,
    /// What a `context` turn is ("Task notification", "System reminder", …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A session re-read from its file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transcript {
    pub meta: SessionMeta,
    pub turns: Vec<Turn>,
}

/// What one indexing run did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IndexSummary {
    /// Transcript files found under the enabled roots.
    pub files: u64,
    /// Files that had new bytes (or were new, replaced or truncated) and were read.
    pub files_indexed: u64,
    /// Files read from the start again because they shrank or were replaced.
    pub files_reindexed_whole: u64,
    /// Index entries dropped because their file is gone (or its source is switched off).
    pub files_removed: u64,
    /// Sessions in the index after the run.
    pub sessions: u64,
    /// Sessions a rebuild kept although their transcript file is gone (the vault).
    pub vault_kept: u64,
    /// Messages added by this run.
    pub messages_indexed: u64,
    /// Lines read by this run.
    pub lines: u64,
    /// Lines deliberately not indexed, by kind (`progress`, `event_msg:token_count`, `boilerplate`, …).
    pub lines_skipped: BTreeMap<String, u64>,
    /// Lines that are not valid JSON (or not an object, or not UTF-8).
    pub malformed_lines: u64,
    /// Files this run found malformed lines in, or could not read (the others were indexed).
    pub problems: Vec<FileProblem>,
    pub bytes_read: u64,
    pub seconds: f64,
}

/// A transcript with lines that were skipped as malformed, or that could not be read at all.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileProblem {
    pub path: PathBuf,
    /// Malformed lines this run skipped in the file.
    pub malformed_lines: u64,
    /// Why the file could not be read; `None` when it was read.
    pub error: Option<String>,
}

impl FileProblem {
    /// One line for a person: what happened to this file, and that nothing else was lost.
    pub fn describe(&self) -> String {
        match &self.error {
            Some(reason) => format!(
                "cannot read {}: {reason}; the other transcripts were indexed",
                self.path.display()
            ),
            None => format!(
                "{}: {} malformed line(s) skipped",
                self.path.display(),
                self.malformed_lines
            ),
        }
    }
}

/// Progress of an indexing run, reported after each file (`done` of `total` files checked).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexProgress {
    pub source: SourceKind,
    pub path: PathBuf,
    pub done: u64,
    pub total: u64,
}

/// What the watcher reports (the shell maps these to its own event names).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SessionChange {
    /// New messages from a transcript are searchable.
    Indexed {
        source: SourceKind,
        session_id: String,
        path: PathBuf,
        messages: u64,
    },
    /// A transcript disappeared; the vault keeps its messages searchable until pruned.
    Removed { path: PathBuf },
    /// A failure while indexing; the watcher keeps running.
    Failed { message: String },
}
