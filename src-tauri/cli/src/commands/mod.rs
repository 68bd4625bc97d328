//! One module per command group; each parses its own arguments and calls core.

pub mod archive;
pub mod compose;
pub mod connect;
pub mod doctor;
pub mod import;
pub mod init;
pub mod memory;
pub mod memory_distill;
pub mod memory_enforce;
pub mod memory_rename;
pub mod memory_review;
pub mod memory_search;
pub mod memory_test;
pub mod reindex;
pub mod serve;
pub mod sessions;
pub mod sessions_prune;
pub mod sync;
pub mod trust;
