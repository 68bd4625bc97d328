//! The data every other module sees of a memory.
//!
//! Owns: `Scope`, `ScopeFilter`, `Memory` (a parsed file) and `MemoryFile` (a listed file that
//! may have failed to parse, so it is never silently dropped).
//! Deliberately does not: parse or write files.

use std::path::PathBuf;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "user" => Ok(Scope::User),
            "project" => Ok(Scope::Project),
            other => Err(format!(
                "unknown scope `{other}` (expected user or project)"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ScopeFilter {
    User,
    Project,
    #[default]
    All,
}

impl From<Scope> for ScopeFilter {
    fn from(scope: Scope) -> ScopeFilter {
        match scope {
            Scope::User => ScopeFilter::User,
            Scope::Project => ScopeFilter::Project,
        }
    }
}

impl ScopeFilter {
    pub fn includes(self, scope: Scope) -> bool {
        matches!(
            (self, scope),
            (ScopeFilter::All, _)
                | (ScopeFilter::User, Scope::User)
                | (ScopeFilter::Project, Scope::Project)
        )
    }
}

/// A memory file that parsed. `kind` is the frontmatter `type`, already canonical.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub scope: Scope,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub created: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    pub tags: Vec<String>,
    pub body: String,
    pub path: PathBuf,
}

/// One `<name>.md` found in a scope directory, parsed or not.
#[derive(Debug, Clone)]
pub struct MemoryFile {
    pub scope: Scope,
    /// The file's basename without `.md`: the memory's identity.
    pub name: String,
    pub path: PathBuf,
    pub size: u64,
    pub modified: SystemTime,
    /// The parsed memory, or a human-readable reason it did not parse.
    pub parsed: Result<Memory, String>,
}
