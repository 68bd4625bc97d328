//! Ambry's sync: a person's memory on their other machines, through a git remote of their own.
//!
//! Owns: the checkout, what may be synced, the file-by-file merge, applying it through the
//! store, and the checks a hostile remote must pass.
//! Deliberately does not: share team memory (that rides in the repository, `memory::team`) or
//! run on a schedule by itself (the workspace's auto-sync decides when).

pub mod sync;
