//! Bringing in what agents already remember (DESIGN §13, `ambry import claude`).
//!
//! Owns: finding other agents' memory files, deciding which Ambry project and name each one
//! becomes, and saving them through the store (so every store rule applies: atomic, locked,
//! archived, secrets refused).
//! Deliberately does not: write the agents' files (they are only read) or guess a project for a
//! directory that resolves to nothing on disk.

pub mod claude;
mod dashed_path;
mod error;

pub use claude::{import_claude, ImportOutcome, ImportReport};
pub use error::ImportError;
