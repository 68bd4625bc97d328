//! Ambry's session index: past Claude Code, Codex and Ambry transcripts, searchable.
//!
//! Owns: reading each agent's transcript format, the FTS5 tables in the index database, the
//! watcher that keeps them current and the vault that keeps a transcript after its file is gone.
//! Deliberately does not: rank memories (the ranker does) or decide what an agent is given.

pub mod sessions;
