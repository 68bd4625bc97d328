//! Reading agent transcripts: where each source keeps them, and what their lines say.
//!
//! Owns: the source roots and the discovery of transcript files under them, each format's line
//! parser (Claude Code, Codex, Ambry-native) with the boilerplate agents inject, reading a file's
//! complete lines from an offset, and grouping a session's subagent and compaction runs.
//! Deliberately does not: touch `index.sqlite` (see `store`), remember where a file was read to,
//! or rank.

pub(super) mod boilerplate;
pub(super) mod claude;
pub(super) mod codex;
pub(super) mod complete_lines;
pub(super) mod discover;
pub(super) mod line;
pub(super) mod native;
pub(super) mod parse;
pub(super) mod roots;
pub(super) mod runs;
