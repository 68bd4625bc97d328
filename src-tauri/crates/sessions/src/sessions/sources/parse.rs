//! One raw transcript line through its source's parser, and a whole transcript's lines counted
//! without an index (diagnostics, fuzzing).
//!
//! Owns: the dispatch from a source to its parser (a cheap borrowed read first, the JSON tree
//! for what it declines) and what counts as a blank or malformed line.
//! Deliberately does not: know a format's fields (the per-source parsers do), read files or
//! remember where a file was read to (see `tail`).

use serde_json::Value;

use super::line::{LineOutcome, SessionState};
use crate::sessions::SourceKind;

/// What a transcript's lines come to, read on their own (no index, no file): for diagnostics and
/// fuzzing the line parsers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineCounts {
    pub messages: u64,
    pub skipped: u64,
    pub malformed: u64,
}

/// Parses every newline-separated line of `bytes` as `source` would, in order, like an index run.
pub fn parse_transcript_lines(source: SourceKind, bytes: &[u8], include_tools: bool) -> LineCounts {
    let mut state = SessionState::default();
    let mut counts = LineCounts::default();
    for raw in bytes.split(|&b| b == b'\n') {
        match parse_line(source, &mut state, raw, include_tools) {
            None => {}
            Some(LineOutcome::Messages(m)) => counts.messages += m.len() as u64,
            Some(LineOutcome::Skipped(_)) => counts.skipped += 1,
            Some(LineOutcome::Malformed) => counts.malformed += 1,
        }
    }
    counts
}

/// One raw line through its source's parser; `None` for a blank line.
pub(crate) fn parse_line(
    source: SourceKind,
    state: &mut SessionState,
    raw: &[u8],
    include_tools: bool,
) -> Option<LineOutcome> {
    let trimmed = raw.trim_ascii();
    if trimmed.is_empty() {
        return None;
    }
    // Cheap borrowed reads first: Claude's covers most of its lines whole, Codex's skips the
    // kinds that are never indexed. What they decline goes through the JSON tree.
    let quick = match source {
        SourceKind::Claude => super::claude::parse_fast(state, trimmed, include_tools),
        SourceKind::Codex => super::codex::skip_by_envelope(state, trimmed),
        SourceKind::Ambry => None,
    };
    if quick.is_some() {
        return quick;
    }
    let value: Value = match serde_json::from_slice(trimmed) {
        Ok(v @ Value::Object(_)) => v,
        // One bad byte sequence inside a string (a tool's output cut mid-character) costs that
        // character, not the whole line: read lossily, it becomes U+FFFD.
        Err(_) if std::str::from_utf8(trimmed).is_err() => {
            match serde_json::from_str(&String::from_utf8_lossy(trimmed)) {
                Ok(v @ Value::Object(_)) => v,
                _ => return Some(LineOutcome::Malformed),
            }
        }
        _ => return Some(LineOutcome::Malformed),
    };
    Some(match source {
        SourceKind::Claude => super::claude::parse(state, &value, include_tools),
        SourceKind::Codex => super::codex::parse(state, &value, include_tools),
        SourceKind::Ambry => super::native::parse(state, &value, include_tools),
    })
}
