//! The write steps of a scope, each taken under its lock: writing a memory file, archiving the
//! current copy, removing a memory's files, taking the lock (and sweeping what killed writers
//! left), and regenerating MEMORY.md.
//!
//! Owns: `SaveOutcome`, what a saved file holds (known fields, then the unknown keys carried over or set) and
//! the order of a write (archive first, then the atomic write, then the directory's sync).
//! Deliberately does not: validate a draft or refuse secrets (the `Store` operations do that
//! before taking the lock) or read memories (see `scope_files`).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::archive::{self, ARCHIVE_DIR};
use super::bounded_read::read_regular;
use super::frontmatter::{self, Document};
use super::index::{render_index, INDEX_FILE};
use super::scope_files::{list_dir, read_bytes, read_text, to_memory};
use super::validate::MEMORY_FILE_MAX;
use super::{Memory, MemoryDraft, NotAMemory, RuleEdit, Scope, StoreError};
use crate::storage::{
    refuse_symlink, sweep_stale_temps, sync_dir, write_atomic, write_atomic_with_mode, LockFailure,
    ScopeLock, LOCK_WAIT,
};

/// What a save or restore came to.
#[derive(Debug, Clone, Serialize)]
pub struct SaveOutcome {
    pub memory: Memory,
    /// True when no memory of that name existed before.
    pub created: bool,
    /// Where the prior version went; `None` for a new memory or an unchanged save.
    pub archived: Option<PathBuf>,
    /// False when the save changed nothing (nothing written, nothing archived).
    pub changed: bool,
}

/// Writes `draft` while the scope lock is held. `previous` names the file whose `created` and
/// unknown keys carry over when it differs from the draft's name (a rename).
pub(super) fn write_locked(
    scope: Scope,
    dir: &Path,
    previous: Option<&str>,
    draft: MemoryDraft,
    keys: &[(&str, &str)],
    rule: &RuleEdit,
    now: DateTime<Utc>,
) -> Result<SaveOutcome, StoreError> {
    let path = dir.join(format!("{}.md", draft.name));
    let source = dir.join(format!("{}.md", previous.unwrap_or(&draft.name)));
    refuse_symlink(&path).map_err(|e| StoreError::io("write", &path, e))?;
    // One rule for every file that is not a valid memory of its name (no frontmatter, a
    // truncated one, or another `name:`): it is never overwritten; the person fixes or forgets it.
    let existing = match read_text(&source) {
        Ok(text) => {
            let unparseable = |reason: NotAMemory| StoreError::UnparseableExisting {
                path: source.display().to_string(),
                reason,
            };
            let doc = frontmatter::parse(&text).map_err(|e| unparseable(e.into()))?;
            let stem = previous.unwrap_or(&draft.name);
            if doc.name != stem {
                return Err(unparseable(NotAMemory::NameMismatch {
                    name: doc.name,
                    stem: stem.to_string(),
                }));
            }
            Some(doc)
        }
        Err(StoreError::NotFound { .. }) => {
            if let Some(previous) = previous {
                return Err(StoreError::NotFound {
                    scope: format!("the {scope} scope"),
                    name: previous.to_string(),
                });
            }
            None
        }
        Err(e) => return Err(e),
    };
    let extra = with_keys(
        existing
            .as_ref()
            .map(|d| d.extra.clone())
            .unwrap_or_default(),
        keys,
    );
    let extra = match rule {
        RuleEdit::Keep => extra,
        RuleEdit::Set(rule) => super::rule::with_rule(extra, Some(rule)),
        RuleEdit::Remove => super::rule::with_rule(extra, None),
    };
    let unchanged = previous.is_none()
        && existing.as_ref().is_some_and(|old| {
            old.kind == draft.kind
                && old.description == draft.description
                && old.tags == draft.tags
                && old.body == draft.body
                && old.extra == extra
        });
    if unchanged {
        let doc = existing.expect("checked above");
        return Ok(SaveOutcome {
            memory: to_memory(scope, &path, doc),
            created: false,
            archived: None,
            changed: false,
        });
    }
    let doc = Document {
        name: draft.name.clone(),
        kind: draft.kind,
        description: draft.description,
        created: existing.as_ref().and_then(|d| d.created).or(Some(now)),
        updated: existing.as_ref().map(|_| now),
        tags: draft.tags,
        extra,
        body: draft.body,
    };
    // A rename archives the old file when it is removed; a plain overwrite archives here.
    let archived = match (&existing, previous) {
        (Some(_), None) => Some(archive_current(dir, &draft.name, now)?),
        _ => None,
    };
    write_atomic(
        dir,
        &format!("{}.md", draft.name),
        frontmatter::render(&doc).as_bytes(),
    )
    .map_err(|e| StoreError::io("write", &path, e))?;
    Ok(SaveOutcome {
        memory: to_memory(scope, &path, doc),
        created: existing.is_none(),
        archived,
        changed: true,
    })
}

/// `extra` (raw frontmatter lines of unknown keys) with each key set: its earlier line and that
/// line's continuation lines replaced in place, or the key appended.
fn with_keys(mut extra: Vec<String>, keys: &[(&str, &str)]) -> Vec<String> {
    for (key, value) in keys {
        let line = key_line(key, value);
        let start = extra.iter().position(|l| {
            l.split_once(':')
                .is_some_and(|(k, _)| k.trim() == *key && !l.starts_with([' ', '\t']))
        });
        match start {
            Some(i) => {
                let mut end = i + 1;
                while end < extra.len()
                    && (extra[end].starts_with([' ', '\t']) || extra[end].starts_with("- "))
                {
                    end += 1;
                }
                extra.splice(i..end, [line]);
            }
            None => extra.push(line),
        }
    }
    extra
}

/// `key: value`, quoted when needed; a flow list of plain names (`[a, b]`, as `merged_from`
/// holds) is written as a list, not as a quoted string.
pub(super) fn key_line(key: &str, value: &str) -> String {
    // `when` comes as the flow list `when::value` renders (phrases quoted as they need).
    if key == super::when::WHEN_KEY {
        return format!("{key}: {value}");
    }
    let plain_list = value.starts_with('[')
        && value.ends_with(']')
        && value[1..value.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-, ".contains(&b));
    if plain_list {
        format!("{key}: {value}")
    } else {
        format!("{key}: {}", frontmatter::quote_if_needed(value))
    }
}

/// Copies the current `<name>.md` into the archive; returns the archived path. When the newest
/// archived copy already holds these bytes (a save that failed after archiving), it is reused.
pub(super) fn archive_current(
    dir: &Path,
    name: &str,
    now: DateTime<Utc>,
) -> Result<PathBuf, StoreError> {
    let current = dir.join(format!("{name}.md"));
    let bytes = read_bytes(&current)?;
    let archive_dir = archive::writable_archive_dir(dir)?;
    if let Some(newest) = archive::newest_version_path(&archive_dir, name) {
        if read_regular(&newest, MEMORY_FILE_MAX).is_ok_and(|old| old == bytes) {
            return Ok(newest);
        }
    }
    let file_name = archive::version_file_name(name, &archive::new_version_id(now));
    // The archived copy keeps the memory's own mode (0600 set by the person stays 0600).
    let mode = fs::metadata(&current).ok().map(|m| m.permissions().mode());
    write_atomic_with_mode(&archive_dir, &file_name, &bytes, mode)
        .map_err(|e| StoreError::io("archive", &archive_dir, e))?;
    Ok(archive_dir.join(file_name))
}

/// Archives then removes `<name>.md` and its `.vec` sidecar; `None` if there was no file.
pub(super) fn remove_memory_files(
    dir: &Path,
    name: &str,
    now: DateTime<Utc>,
) -> Result<Option<PathBuf>, StoreError> {
    let path = dir.join(format!("{name}.md"));
    if fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let archived = archive_current(dir, name, now)?;
    fs::remove_file(&path).map_err(|e| StoreError::io("remove", &path, e))?;
    let sidecar = dir.join(format!("{name}.vec"));
    if let Err(e) = fs::remove_file(&sidecar) {
        if e.kind() != std::io::ErrorKind::NotFound {
            return Err(StoreError::io("remove", &sidecar, e));
        }
    }
    sync_dir(dir).map_err(|e| StoreError::io("sync", dir, e))?;
    Ok(Some(archived))
}

/// Takes the scope lock (bounded wait) and clears what killed writers left: temp files older
/// than a minute in the scope and its archive.
pub(super) fn lock_and_tidy(dir: &Path, now: DateTime<Utc>) -> Result<ScopeLock, StoreError> {
    let lock = lock_scope(dir)?;
    sweep_stale_temps(dir, now.into());
    sweep_stale_temps(&dir.join(ARCHIVE_DIR), now.into());
    Ok(lock)
}

pub(super) fn lock_scope(dir: &Path) -> Result<ScopeLock, StoreError> {
    ScopeLock::acquire(dir).map_err(|failure| match failure {
        LockFailure::TimedOut { holder } => StoreError::Locked {
            path: dir.display().to_string(),
            holder: holder.unwrap_or_else(|| "another process".to_string()),
            seconds: LOCK_WAIT.as_secs(),
        },
        LockFailure::Io(e) => StoreError::io("lock", &dir.join(crate::storage::LOCK_FILE), e),
    })
}

/// Rewrites MEMORY.md when it differs from what the directory says (so a writer killed between
/// its rename and this step is repaired by the next one).
pub(super) fn regenerate_index(scope: Scope, dir: &Path) -> Result<(), StoreError> {
    let files = list_dir(scope, dir)?;
    let memories: Vec<&Memory> = files
        .iter()
        .filter_map(|f| f.parsed.as_ref().ok())
        .collect();
    let text = render_index(&memories);
    let path = dir.join(INDEX_FILE);
    if read_regular(&path, MEMORY_FILE_MAX).is_ok_and(|current| current == text.as_bytes()) {
        return Ok(());
    }
    write_atomic(dir, INDEX_FILE, text.as_bytes()).map_err(|e| StoreError::io("write", &path, e))
}
