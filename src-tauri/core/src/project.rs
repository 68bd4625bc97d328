//! Project identity (DESIGN §2): which project a working directory belongs to, and its slug.
//!
//! Owns: finding the repository root of a cwd (git top level; worktrees resolve to the main
//! repository), normalizing the remote, the readable collision-free slug, `project.toml`.
//! Deliberately does not: read or write memories.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A project as Engram knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    /// `<readable>-<8 hex>`, e.g. `ledger-1a2b3c4d`.
    pub slug: String,
    /// The repository root (canonical absolute path).
    pub root: PathBuf,
    /// The normalized `origin` remote, e.g. `github.com/acme/ledger`, when there is one.
    pub remote: Option<String>,
}
