//! Reading a scope's files: one memory file (bounded, regular files only, never through a
//! symbolic link, its name and type checked, control characters stripped from what a terminal
//! or prompt shows) and the listing of a scope directory with the reason each file that is not
//! a memory is not one. A link named `<name>.md` is listed as a link, with where it points, and
//! never read: not listed as a memory, not injected, not archived, merged or removed through.
//!
//! Owns: `read_memory_file`, the listing and the `Memory` a parsed document becomes.
//! Deliberately does not: write, lock, or decide which scope a name is looked up in (see
//! `store`).

use std::fs;
use std::path::Path;
use std::sync::Arc;

use super::bounded_read::{link_at, non_regular_kind, read_regular_unlinked, ReadRefusal};
use super::frontmatter::{self, Document};
use super::index::INDEX_FILE;
use super::naming::{canonical_type, validate_name};
use super::validate::{strip_controls, MEMORY_FILE_MAX};
use super::{Memory, MemoryFile, NotAMemory, Scope, StoreError};
use crate::storage::TEMP_PREFIX;

/// A memory directory's file, bounded and only if regular (a link is refused, not followed); a
/// missing file is `NotFound`.
pub(super) fn read_bytes(path: &Path) -> Result<Vec<u8>, StoreError> {
    read_regular_unlinked(path, MEMORY_FILE_MAX).map_err(|refusal| match refusal {
        ReadRefusal::Missing => StoreError::NotFound {
            scope: path
                .parent()
                .map_or_else(String::new, |d| d.display().to_string()),
            name: path
                .file_stem()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        },
        ReadRefusal::Io(e) => StoreError::io("read", path, e),
        other => StoreError::Unreadable {
            path: path.display().to_string(),
            reason: other.to_string(),
        },
    })
}

pub(super) fn read_text(path: &Path) -> Result<String, StoreError> {
    String::from_utf8(read_bytes(path)?).map_err(|_| StoreError::Unreadable {
        path: path.display().to_string(),
        reason: "is not UTF-8 text".into(),
    })
}

pub(super) fn list_dir(scope: Scope, dir: &Path) -> Result<Vec<MemoryFile>, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io("read", dir, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io("read", dir, e))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(name) = file_name.strip_suffix(".md") else {
            continue;
        };
        if file_name == INDEX_FILE
            || file_name.starts_with('.')
            || file_name.starts_with(TEMP_PREFIX)
        {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        // Listed with its reason, like any file that is not a memory: `get` then says the same.
        let refusal = if meta.file_type().is_symlink() {
            Some(link_at(&path))
        } else {
            non_regular_kind(meta.file_type()).map(ReadRefusal::NotAFile)
        };
        if let Some(refusal) = refusal {
            let reason = NotAMemory::Unreadable(Arc::new(refusal));
            files.push(MemoryFile {
                scope,
                name: name.to_string(),
                path,
                size: 0,
                modified: std::time::UNIX_EPOCH,
                parsed: Err(reason),
            });
            continue;
        }
        let parsed = match read_memory_file(scope, &path) {
            Ok(Some(memory)) => Ok(memory),
            Ok(None) => continue,
            Err(reason) => Err(reason),
        };
        files.push(MemoryFile {
            scope,
            name: name.to_string(),
            path,
            size: meta.len(),
            modified: meta.modified().unwrap_or(std::time::UNIX_EPOCH),
            parsed,
        });
    }
    Ok(files)
}

/// `Ok(None)` when the file does not exist; `Err(why)` when it exists but is not a memory.
pub fn read_memory_file(scope: Scope, path: &Path) -> Result<Option<Memory>, NotAMemory> {
    let bytes = match read_regular_unlinked(path, MEMORY_FILE_MAX) {
        Ok(bytes) => bytes,
        Err(ReadRefusal::Missing) => return Ok(None),
        Err(refusal) => return Err(NotAMemory::Unreadable(Arc::new(refusal))),
    };
    let text = String::from_utf8(bytes).map_err(|_| NotAMemory::NotUtf8)?;
    let doc = frontmatter::parse(&text)?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    if doc.name != stem {
        return Err(NotAMemory::NameMismatch {
            name: doc.name,
            stem: stem.to_string(),
        });
    }
    if let Err(e) = validate_name(stem) {
        return Err(NotAMemory::Invalid(Arc::new(e)));
    }
    let mut doc = doc;
    doc.kind = canonical_type(&doc.kind).map_err(|e| NotAMemory::Invalid(Arc::new(e)))?;
    // Others may write these files: what ends up on a terminal or in a prompt carries no escapes.
    doc.description = strip_controls(&doc.description);
    doc.tags = doc.tags.iter().map(|t| strip_controls(t)).collect();
    Ok(Some(to_memory(scope, path, doc)))
}

pub(super) fn to_memory(scope: Scope, path: &Path, doc: Document) -> Memory {
    // `parse` refused a document whose lifecycle keys do not read.
    let lifecycle = frontmatter::lifecycle(&doc.extra).unwrap_or_default();
    Memory {
        lifecycle,
        scope,
        name: doc.name,
        kind: doc.kind,
        description: doc.description,
        created: doc.created,
        updated: doc.updated,
        tags: doc.tags,
        body: doc.body,
        path: path.to_path_buf(),
    }
}
