//! What `ambry connect` created, so `ambry disconnect` removes exactly that: the files it
//! created and the containers (`hooks`, `hooks/SessionStart`, `mcpServers`) it added to files
//! that existed. Kept in the Ambry home (`agent-connections.json`), keyed by file path.
//!
//! Owns: reading (a missing or garbled record is no record) and updating the record.
//! Deliberately does not: decide what to remove (`connect`, `hooks_json`, `claude_config`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{config_file, AgentError};

pub const FILE_NAME: &str = "agent-connections.json";

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// The file did not exist before connect.
    #[serde(default)]
    pub created_file: bool,
    /// Containers connect added (`hooks`, `hooks/SessionStart`, `mcpServers`).
    #[serde(default)]
    pub created: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectRecord {
    #[serde(default)]
    pub files: BTreeMap<PathBuf, FileRecord>,
}

impl ConnectRecord {
    pub fn read(path: &Path) -> ConnectRecord {
        config_file::read(path)
            .ok()
            .flatten()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    pub fn write(&self, path: &Path) -> Result<(), AgentError> {
        if self.files.is_empty() {
            return match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(AgentError::io("remove", path, e))
                }
                _ => Ok(()),
            };
        }
        let text = serde_json::to_string_pretty(self).expect("the record serializes") + "\n";
        config_file::replace(path, &text)
    }

    pub fn get(&self, file: &Path) -> Option<&FileRecord> {
        self.files.get(file)
    }

    /// Adds what a connect created; what an earlier connect recorded stays. A file connect
    /// changed but created nothing in is recorded too: its record says "nothing to remove
    /// beyond Ambry's own entries" (a file without a record was connected by an earlier
    /// release, which did not keep one).
    pub fn note(&mut self, file: &Path, created_file: bool, created: &[String]) {
        let entry = self.files.entry(file.to_path_buf()).or_default();
        entry.created_file |= created_file;
        for c in created {
            if !entry.created.contains(c) {
                entry.created.push(c.clone());
            }
        }
    }

    pub fn forget(&mut self, file: &Path) {
        self.files.remove(file);
    }
}
