//! A remote is input (DESIGN §15): every file a sync would take from it is checked as a save
//! checks it, before anything reaches the home.
//!
//! Owns: the judgement of one incoming tree entry — a path the allowlist names, a regular file
//! (no link, no submodule), within the store's size bound, UTF-8, no secret, a memory that
//! parses under its own name with fields a save accepts, a project remote that gives its slug —
//! and `Refused`, what a refused file is reported as.
//! Deliberately does not: write, or decide what happens to a refused file (the merge keeps
//! this machine's version of that path).

use serde::{Deserialize, Serialize};

use super::allowlist::{slug_matches_remote, Kind};
use super::repo::Entry;
use ambry_store::memory::secrets::find_secret;
use ambry_store::memory::validate::MEMORY_FILE_MAX;

/// A file a remote sent that was not taken, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refused {
    pub path: String,
    pub reason: String,
}

/// Blobs a sync reads at most: anything larger is refused by its size alone.
pub const READ_MAX: u64 = MEMORY_FILE_MAX;

/// The kind of `path` when `entry` (with its `bytes`, read when not too large) may be taken.
pub fn inspect(path: &str, entry: &Entry, bytes: Option<&[u8]>) -> Result<Kind, String> {
    let kind = Kind::of(path)?;
    if entry.mode == "120000" {
        return Err("is a symbolic link; Ambry never follows links from a remote".into());
    }
    if !entry.is_regular() {
        return Err(format!("is not a regular file (git mode {})", entry.mode));
    }
    if entry.size > READ_MAX {
        return Err(format!(
            "is {} bytes, over the {READ_MAX}-byte limit of a memory file",
            entry.size
        ));
    }
    let bytes = bytes.ok_or("could not be read from the sync repository")?;
    let text = std::str::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_string())?;
    if let Some(found) = find_secret(text) {
        return Err(format!(
            "looks like it holds a secret ({}: {})",
            found.kind, found.excerpt
        ));
    }
    match &kind {
        Kind::Memory { name, .. } => {
            ambry_store::memory::check_synced_text(name, bytes).map_err(|e| e.to_string())?
        }
        Kind::ProjectRemote { slug } => {
            let remote = text.trim();
            if remote.contains('\n') || !slug_matches_remote(slug, remote) {
                return Err(format!("does not name the git remote of project {slug}"));
            }
        }
        Kind::Tests { .. } => {
            text.parse::<toml::Table>()
                .map_err(|e| format!("is not valid TOML: {}", e.message()))?;
        }
        Kind::UserAnchor => {
            if entry.size > ambry_store::anchors::ANCHOR_MAX {
                return Err(format!(
                    "is {} bytes, over the {}-byte limit of USER.md",
                    entry.size,
                    ambry_store::anchors::ANCHOR_MAX
                ));
            }
            if let Some(c) = ambry_store::memory::validate::control_character(text, true) {
                return Err(format!("contains the control character U+{:04X}", c as u32));
            }
        }
    }
    Ok(kind)
}
