//! The data every other module sees of a memory.
//!
//! Owns: `Scope`, `ScopeFilter`, `Memory` (a parsed file), its `Lifecycle` keys (DESIGN §14)
//! and the one rule for when a memory is retired, and `MemoryFile` (a listed file that may have
//! failed to parse, so it is never silently dropped), and `MemoryDraft` (what a caller asks to
//! save: the store writes it and validation checks it, neither importing the other).
//! Deliberately does not: parse or write files.

use std::path::PathBuf;
use std::time::SystemTime;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

/// Where a memory lives and whom it is for. Ordered by precedence: a project memory shadows a
/// team memory of the same name, which shadows a user one (DESIGN §15).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    /// Shared through a repository: `<repo>/.ambry/memory/`, committed by the person.
    Team,
    Project,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Team => "team",
            Scope::Project => "project",
        }
    }

    /// Whether memories of this scope belong to one repository (their ledger and usage keys
    /// carry its project slug).
    pub fn of_a_project(self) -> bool {
        matches!(self, Scope::Team | Scope::Project)
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
            "team" => Ok(Scope::Team),
            "project" => Ok(Scope::Project),
            other => Err(format!(
                "unknown scope `{other}` (expected user, team or project)"
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ScopeFilter {
    User,
    Team,
    Project,
    /// Every scope agents are given: user, project, and team once the repository is trusted.
    #[default]
    All,
}

impl From<Scope> for ScopeFilter {
    fn from(scope: Scope) -> ScopeFilter {
        match scope {
            Scope::User => ScopeFilter::User,
            Scope::Team => ScopeFilter::Team,
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
                | (ScopeFilter::Team, Scope::Team)
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
    /// `expires`, `superseded_by`, `reviewed`, `merged_from`, `source` (all optional).
    #[serde(default)]
    pub lifecycle: Lifecycle,
}

impl Memory {
    /// A memory read from no file: `name` in `scope` at `path`, of type `kind`, with no dates,
    /// tags or lifecycle keys. What tests, benches and examples build memories from.
    pub fn sketch(
        scope: Scope,
        name: impl Into<String>,
        kind: impl Into<String>,
        description: impl Into<String>,
        body: impl Into<String>,
        path: impl Into<PathBuf>,
    ) -> Memory {
        Memory {
            scope,
            name: name.into(),
            kind: kind.into(),
            description: description.into(),
            created: None,
            updated: None,
            tags: vec![],
            body: body.into(),
            path: path.into(),
            lifecycle: Lifecycle::default(),
        }
    }
}

/// The optional lifecycle keys of a memory's frontmatter (DESIGN §14). They stay in the file as
/// written (like any key Ambry does not interpret); this is what they say.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Lifecycle {
    /// From this day on the memory is expired: never injected, listed in the review inbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<NaiveDate>,
    /// The memory that replaces this one: never injected again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// A person looked at the review inbox's finding and kept the memory as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewed: Option<Reviewed>,
    /// The memories merged into this one (their files were archived).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// Where the memory came from (an import, a distilled session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The memory's rule, checked at agents' tool calls (DESIGN §16), as the file says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforce: Option<super::rule::Enforce>,
    /// When the memory is needed (DESIGN §5), bounded as `when::bounded` reads it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<String>,
}

/// `reviewed: <time> sha:<fingerprint>`: when a person kept the memory, and of which text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reviewed {
    pub at: DateTime<Utc>,
    /// The memory's `content_fingerprint` when it was kept; `None` in a hand-written key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

/// Why a memory is no longer injected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "retired", rename_all = "snake_case")]
pub enum Retirement {
    Superseded { by: String },
    Expired { on: NaiveDate },
}

/// The words every front end shows for it: `superseded by NAME`, `expired DATE`.
impl std::fmt::Display for Retirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Retirement::Superseded { by } => write!(f, "superseded by {by}"),
            Retirement::Expired { on } => write!(f, "expired {on}"),
        }
    }
}

/// The lifecycle keys that decide whether a memory is retired, apart from the rest of the
/// memory: the ranker's corpus cache keeps them per document, so a search marks its hits
/// retired without reading their files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retiring {
    pub superseded_by: Option<String>,
    pub expires: Option<NaiveDate>,
}

impl Retiring {
    /// Why a memory with these keys is retired on `today`, if it is: superseded always,
    /// expired once its `expires` day has come (without a date, only supersession counts).
    pub fn retirement(&self, today: Option<NaiveDate>) -> Option<Retirement> {
        if let Some(by) = &self.superseded_by {
            return Some(Retirement::Superseded { by: by.clone() });
        }
        match (self.expires, today) {
            (Some(on), Some(today)) if on <= today => Some(Retirement::Expired { on }),
            _ => None,
        }
    }
}

impl Memory {
    /// The keys that decide whether this memory is retired.
    pub fn retiring(&self) -> Retiring {
        Retiring {
            superseded_by: self.lifecycle.superseded_by.clone(),
            expires: self.lifecycle.expires,
        }
    }

    /// Why this memory is retired on `today`, if it is (see [`Retiring::retirement`]).
    pub fn retirement(&self, today: Option<NaiveDate>) -> Option<Retirement> {
        self.retiring().retirement(today)
    }

    /// Retired memories are never injected into an agent's context (DESIGN §14).
    pub fn is_retired(&self, today: Option<NaiveDate>) -> bool {
        self.retirement(today).is_some()
    }

    /// A short hash of what the memory says (description and body): a `reviewed` mark holds
    /// it, so a memory kept as it was is flagged again once its text changes.
    pub fn content_fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        hasher.update(self.description.trim().as_bytes());
        hasher.update(b"\n");
        hasher.update(self.body.trim().as_bytes());
        let digest = hasher.finalize();
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Whether a person kept this memory, as it reads now, after a review.
    pub fn reviewed_as_is(&self) -> bool {
        match &self.lifecycle.reviewed {
            None => false,
            Some(Reviewed {
                fingerprint: Some(f),
                ..
            }) => *f == self.content_fingerprint(),
            Some(Reviewed { at, .. }) => self.updated.is_none_or(|u| u <= *at),
        }
    }
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
    /// The parsed memory, or why it did not parse.
    pub parsed: Result<Memory, super::NotAMemory>,
}

/// What a caller wants saved; the store fills in timestamps and keeps unknown keys.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize, ts_rs::TS)]
pub struct MemoryDraft {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub body: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

impl From<&Memory> for MemoryDraft {
    /// The memory as it reads, to save again with only its keys changed (a rule, a review mark).
    fn from(m: &Memory) -> MemoryDraft {
        MemoryDraft {
            name: m.name.clone(),
            kind: m.kind.clone(),
            description: m.description.clone(),
            body: m.body.clone(),
            tags: m.tags.clone(),
        }
    }
}
