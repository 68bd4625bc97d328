//! The memory store (DESIGN §2–3): memory files, their rules, and the only code that writes them.
//!
//! Owns: the shared vocabulary of memories (`Scope`, `Memory`, `MemoryFile`) used by the
//! ranker, the composer, the app and the CLI, plus the store's submodules.
//! Deliberately does not: rank, embed or render; those modules consume what the store reads.

mod model;

pub use model::{Memory, MemoryFile, Scope, ScopeFilter};
