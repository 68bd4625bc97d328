//! The session tables in `index.sqlite`: what the index holds and how it is kept current.
//!
//! Owns: `SessionIndex` (the connection and its write transactions, in the writers' turn), the
//! schema and its migrations, storing what a read of a file came to, the per-file checkpoints
//! and the indexing runs they drive, the vault of transcripts whose files are gone, browsing
//! sessions and transcripts, and the index's health checks.
//! Deliberately does not: parse a format or find transcript files (see `sources`), rank or
//! search (see `recall`, `session_ranking`), or watch the filesystem (see `watcher`).

pub(super) mod checkpoint;
pub(super) mod db;
pub(super) mod health;
pub(super) mod index;
pub(super) mod mask_stored;
pub(super) mod pending_fts;
pub(super) mod rows;
pub(super) mod run;
pub(super) mod tail;
pub(super) mod transcript;
pub(super) mod vault;
pub(super) mod writer_turn;
