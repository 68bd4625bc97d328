//! One thin `#[tauri::command]` per operation, grouped by the view that uses it.
//!
//! Owns: the IPC argument and result shapes (`Location`, `MemoryRef`, row views).
//! Deliberately does not: hold rules; each command resolves paths through core from a scope,
//! a project slug and a name — the UI never sends a path to read or write.

pub mod agents;
pub mod anchors;
pub mod archive;
pub mod compose;
pub mod distill;
pub mod instructions;
pub mod memories;
pub mod projects;
pub mod reindex;
pub mod review;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod sync;

use ambry_core::Scope;
use serde::Deserialize;

/// A scope as the UI names it: the user scope, or one known project's scope.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct Location {
    pub scope: Scope,
    #[serde(default)]
    pub project: Option<String>,
}

impl Location {
    /// The project slug the store needs (project and team scope have one).
    pub fn project_slug(&self) -> Option<&str> {
        match self.scope {
            Scope::User => None,
            Scope::Team | Scope::Project => self.project.as_deref(),
        }
    }
}

/// One memory as the UI names it.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct MemoryRef {
    #[serde(flatten)]
    pub location: Location,
    pub name: String,
}
