//! Memory files that arrived by personal sync (DESIGN §15), written through the store's
//! ordinary write path: the same checks as a save (name, format, size, secrets), the scope
//! lock, the prior version archived, an atomic write, MEMORY.md regenerated once per batch.
//!
//! Owns: writing a file exactly as another machine saved it (its `created`, `updated` and
//! unknown keys as they are, so the two machines hold the same bytes), removing one, archiving
//! a version that lost a two-machine conflict, and leaving alone a file a person changed here
//! while the sync ran (it goes out with the next sync).
//! Deliberately does not: decide what to write (sync's merge does) or talk to git.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::archive;
use super::frontmatter;
use super::naming::validate_name;
use super::scope_files::read_bytes;
use super::scope_write::{lock_and_tidy, regenerate_index};
use super::secrets::find_secret;
use super::validate::{validate_draft, MEMORY_FILE_MAX};
use super::{MemoryDraft, Scope, Store, StoreError};
use crate::storage::{refuse_symlink, sync_dir, write_atomic, write_atomic_with_mode};

/// One memory file as sync wants it: `expected` is what the store held when the sync read it
/// (`None`: no file), `new` what it should hold (`None`: removed).
#[derive(Debug, Clone)]
pub struct SyncedFile {
    pub name: String,
    pub expected: Option<Vec<u8>>,
    pub new: Option<Vec<u8>>,
}

/// Each file's name and outcome, or why the store refused it.
pub type SyncedOutcomes = Vec<(String, Result<SyncedOutcome, StoreError>)>;

/// What became of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncedOutcome {
    Written,
    Removed,
    /// It already held the new text (a sync that was interrupted after this write).
    AlreadyThere,
    /// A person changed it here during the sync: left as it is, it goes out next time.
    ChangedHere,
}

impl Store {
    /// Applies `files` to one scope under one lock, regenerating MEMORY.md once, and archives
    /// each of `losers` (name, text) as a prior version of that memory. Returns each file's
    /// outcome or why it was refused.
    pub fn apply_synced(
        &self,
        scope: Scope,
        files: Vec<SyncedFile>,
        losers: Vec<(String, Vec<u8>)>,
        now: DateTime<Utc>,
    ) -> Result<SyncedOutcomes, StoreError> {
        let dir = self.prepare_dir(scope)?;
        let _lock = lock_and_tidy(&dir, now)?;
        let mut outcomes = Vec::with_capacity(files.len());
        for (name, text) in losers {
            if validate_name(&name).is_ok() && check_synced_text(&name, &text).is_ok() {
                let archive_dir = archive::writable_archive_dir(&dir)?;
                let file_name = archive::version_file_name(&name, &archive::new_version_id(now));
                write_atomic_with_mode(&archive_dir, &file_name, &text, None)
                    .map_err(|e| StoreError::io("archive", &archive_dir, e))?;
            }
        }
        for file in files {
            let outcome = apply_one(&dir, &file, now);
            outcomes.push((file.name, outcome));
        }
        regenerate_index(scope, &dir)?;
        Ok(outcomes)
    }
}

fn apply_one(
    dir: &std::path::Path,
    file: &SyncedFile,
    now: DateTime<Utc>,
) -> Result<SyncedOutcome, StoreError> {
    validate_name(&file.name)?;
    let file_name = format!("{}.md", file.name);
    let path: PathBuf = dir.join(&file_name);
    refuse_symlink(&path).map_err(|e| StoreError::io("write", &path, e))?;
    let current = match read_bytes(&path) {
        Ok(bytes) => Some(bytes),
        Err(StoreError::NotFound { .. }) => None,
        Err(e) => return Err(e),
    };
    if current == file.new {
        return Ok(SyncedOutcome::AlreadyThere);
    }
    if current != file.expected {
        return Ok(SyncedOutcome::ChangedHere);
    }
    match &file.new {
        Some(text) => {
            check_synced_text(&file.name, text)?;
            if let Some(prior) = &current {
                archive_prior(dir, &path, &file.name, prior, now)?;
            }
            write_atomic(dir, &file_name, text).map_err(|e| StoreError::io("write", &path, e))?;
            // The sidecar embedded the old text: removed, the next reindex embeds the new one.
            let _ = fs::remove_file(dir.join(format!("{}.vec", file.name)));
            Ok(SyncedOutcome::Written)
        }
        None => {
            if let Some(prior) = &current {
                archive_prior(dir, &path, &file.name, prior, now)?;
            }
            fs::remove_file(&path).map_err(|e| StoreError::io("remove", &path, e))?;
            let _ = fs::remove_file(dir.join(format!("{}.vec", file.name)));
            sync_dir(dir).map_err(|e| StoreError::io("sync", dir, e))?;
            Ok(SyncedOutcome::Removed)
        }
    }
}

/// Archives the bytes just compared, without scanning the archive for a copy to reuse (a batch
/// of thousands would read the whole archive that many times).
fn archive_prior(
    dir: &std::path::Path,
    path: &std::path::Path,
    name: &str,
    prior: &[u8],
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let archive_dir = archive::writable_archive_dir(dir)?;
    let version = archive::version_file_name(name, &archive::new_version_id(now));
    let mode = fs::metadata(path).ok().map(|m| m.permissions().mode());
    write_atomic_with_mode(&archive_dir, &version, prior, mode)
        .map_err(|e| StoreError::io("archive", &archive_dir, e))
}

/// The checks of a save, on a whole file another machine wrote: bounded, UTF-8, a memory of
/// this name, fields a save would accept, no secret anywhere in it.
pub fn check_synced_text(name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    let invalid = |reason: String| StoreError::InvalidField {
        field: "file",
        reason,
    };
    if bytes.len() as u64 > MEMORY_FILE_MAX {
        return Err(invalid(format!(
            "is {} bytes, over the {MEMORY_FILE_MAX}-byte limit of a memory file",
            bytes.len()
        )));
    }
    let text = std::str::from_utf8(bytes).map_err(|_| invalid("is not UTF-8 text".into()))?;
    if let Some(found) = find_secret(text) {
        return Err(StoreError::SecretDetected {
            kind: found.kind,
            excerpt: found.excerpt,
        });
    }
    let doc = frontmatter::parse(text).map_err(|e| invalid(e.to_string()))?;
    if doc.name != name {
        return Err(invalid(format!(
            "says `name: {}` but is named {name}.md",
            crate::error::quoted(&doc.name)
        )));
    }
    validate_draft(MemoryDraft {
        name: doc.name,
        kind: doc.kind,
        description: doc.description,
        body: doc.body,
        tags: doc.tags,
    })?;
    Ok(())
}
