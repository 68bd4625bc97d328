//! The store: the only code that reads and writes memory files (DESIGN §2–3).
//!
//! Owns: listing and reading scopes, and every write transaction — validate, refuse secrets,
//! lock the scope, archive the prior version, write atomically, regenerate MEMORY.md.
//! Deliberately does not: rank, embed or render; nor decide which project a cwd is (callers
//! pass the resolved `Project`).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::archive::{self, ArchivedVersion, PrunePolicy, ARCHIVE_DIR};
use super::bounded_read::{non_regular_kind, read_regular, ReadRefusal};
use super::frontmatter::{self, Document};
use super::index::{render_index, INDEX_FILE};
use super::naming::{canonical_type, validate_name};
use super::validate::{strip_controls, validate_draft, INDEX_FILE_MAX, MEMORY_FILE_MAX};
use super::{Memory, MemoryDraft, MemoryFile, NotAMemory, Scope, ScopeFilter, StoreError};
use crate::project::{self, Project};
use crate::storage::{
    refuse_symlink, sweep_stale_temps, sync_dir, write_atomic, write_atomic_with_mode, LockFailure,
    ScopeLock, LOCK_WAIT, TEMP_PREFIX,
};
use crate::AmbryHome;
use std::os::unix::fs::PermissionsExt;

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

#[derive(Debug, Clone, Serialize)]
pub struct ForgetOutcome {
    pub scope: Scope,
    pub name: String,
    pub archived: PathBuf,
    /// The archive version id to pass to `restore`.
    pub version: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PruneReport {
    pub dry_run: bool,
    pub removed: Vec<ArchivedVersion>,
    pub kept: usize,
}

pub struct Store {
    home: AmbryHome,
    project: Option<Project>,
}

impl Store {
    pub fn new(home: AmbryHome, project: Option<Project>) -> Store {
        Store { home, project }
    }

    pub fn home(&self) -> &AmbryHome {
        &self.home
    }

    pub fn project(&self) -> Option<&Project> {
        self.project.as_ref()
    }

    /// The directory of a scope; project scope needs a project.
    pub fn dir(&self, scope: Scope) -> Result<PathBuf, StoreError> {
        match scope {
            Scope::User => Ok(self.home.user_memory_dir()),
            Scope::Project => self
                .project
                .as_ref()
                .map(|p| self.home.project_memory_dir(&p.slug))
                .ok_or(StoreError::NoProject),
        }
    }

    /// The scopes a filter covers here (project only when there is one).
    pub fn scopes(&self, filter: ScopeFilter) -> Vec<Scope> {
        [Scope::User, Scope::Project]
            .into_iter()
            .filter(|s| filter.includes(*s) && (*s == Scope::User || self.project.is_some()))
            .collect()
    }

    /// Every memory file of the covered scopes, parsed or with the reason it did not parse.
    pub fn list(&self, filter: ScopeFilter) -> Result<Vec<MemoryFile>, StoreError> {
        if filter == ScopeFilter::Project && self.project.is_none() {
            return Err(StoreError::NoProject);
        }
        let mut files = Vec::new();
        for scope in self.scopes(filter) {
            files.extend(list_dir(scope, &self.dir(scope)?)?);
        }
        files.sort_by(|a, b| a.scope.cmp(&b.scope).then_with(|| a.name.cmp(&b.name)));
        Ok(files)
    }

    /// One memory; without a scope the project's copy shadows the user's.
    pub fn get(&self, scope: Option<Scope>, name: &str) -> Result<Memory, StoreError> {
        validate_name(name)?;
        let scopes = match scope {
            Some(s) => vec![s],
            None => self.scopes(ScopeFilter::All).into_iter().rev().collect(),
        };
        for scope in &scopes {
            let path = self.dir(*scope)?.join(format!("{name}.md"));
            // A FIFO or device is no memory to fix or forget (forgetting archives, which reads
            // it): the advice that works is to move it out of the store.
            if let Some(kind) = fs::metadata(&path)
                .ok()
                .and_then(|m| non_regular_kind(m.file_type()))
            {
                return Err(StoreError::Unreadable {
                    path: path.display().to_string(),
                    reason: format!(
                        "is {kind}, not a memory; Ambry reads only regular files. Move it out of the memory folder (`mv {} …`)",
                        path.display()
                    ),
                });
            }
            match read_memory_file(*scope, &path) {
                Ok(Some(memory)) => return Ok(memory),
                Ok(None) => continue,
                Err(reason) => {
                    return Err(StoreError::UnparseableExisting {
                        path: path.display().to_string(),
                        reason,
                    })
                }
            }
        }
        let scope = match scopes.as_slice() {
            [one] => format!("the {one} scope"),
            _ => "the project or user scope".to_string(),
        };
        Err(StoreError::NotFound {
            scope,
            name: name.to_string(),
        })
    }

    /// The scope's generated MEMORY.md, if there is one.
    pub fn index_text(&self, scope: Scope) -> Result<Option<String>, StoreError> {
        let path = self.dir(scope)?.join(INDEX_FILE);
        let unreadable = |reason: String| StoreError::Unreadable {
            path: path.display().to_string(),
            reason,
        };
        match read_regular(&path, INDEX_FILE_MAX) {
            Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| unreadable("is not UTF-8 text".into())),
            Err(ReadRefusal::Missing) => Ok(None),
            Err(ReadRefusal::TooLarge { size, limit }) => {
                Err(unreadable(format!("is {size} bytes, over the {limit}-byte limit for an index; any save regenerates it")))
            }
            Err(ReadRefusal::Io(e)) => Err(StoreError::io("read", &path, e)),
            Err(other) => Err(unreadable(other.to_string())),
        }
    }

    /// Rewrites a scope's own side file (e.g. `tests.toml`) under the scope lock: `edit` gets
    /// its text (`None` when it does not exist yet) and returns the new text, written
    /// atomically. Returns the file's path. Memory files and MEMORY.md are not side files.
    pub fn edit_side_file<E: From<StoreError>>(
        &self,
        scope: Scope,
        file_name: &str,
        edit: impl FnOnce(Option<&str>, &Path) -> Result<String, E>,
    ) -> Result<PathBuf, E> {
        let dir = self.dir(scope)?;
        let path = dir.join(file_name);
        crate::storage::create_private_dir_all(&dir)
            .map_err(|e| StoreError::io("create", &dir, e))?;
        let _lock = lock_scope(&dir)?;
        refuse_symlink(&path).map_err(|e| StoreError::io("read", &path, e))?;
        let current = match fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(StoreError::io("read", &path, e).into()),
        };
        let text = edit(current.as_deref(), &path)?;
        write_atomic(&dir, file_name, text.as_bytes())
            .map_err(|e| StoreError::io("write", &path, e))?;
        Ok(path)
    }

    /// Creates or overwrites a memory; the prior version is archived first and keeps `created`.
    pub fn save(
        &self,
        scope: Scope,
        draft: MemoryDraft,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        self.save_with_keys(scope, draft, &[], now)
    }

    /// `save`, also setting frontmatter keys Ambry does not interpret (such as an import's
    /// `source`), each replacing an earlier value of that key. Unchanged fields and keys: no write.
    pub fn save_with_keys(
        &self,
        scope: Scope,
        draft: MemoryDraft,
        keys: &[(&str, &str)],
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        let draft = validate_draft(draft)?;
        for (key, value) in keys {
            let known = ["name", "type", "description", "created", "updated", "tags"].contains(key);
            if known || key.is_empty() || !key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
            {
                return Err(StoreError::InvalidField {
                    field: "frontmatter key",
                    reason: format!("`{key}` cannot be set as an extra key"),
                });
            }
            if value.contains(['\n', '\r']) {
                return Err(StoreError::InvalidField {
                    field: "frontmatter key",
                    reason: format!("`{key}` must be a single line"),
                });
            }
            frontmatter::lifecycle(&[key_line(key, value)]).map_err(|e| {
                StoreError::InvalidField {
                    field: "frontmatter key",
                    reason: e.to_string(),
                }
            })?;
        }
        let dir = self.prepare_dir(scope)?;
        let _lock = lock_and_tidy(&dir, now)?;
        let outcome = write_locked(scope, &dir, None, draft, keys, now)?;
        // Even an unchanged save repairs an index a killed writer left behind. Its failure is
        // told as what it is: the memory was written (a "refused" would have the person save
        // it again, or think it lost).
        regenerate_index(scope, &dir).map_err(|e| StoreError::IndexNotWritten {
            saved: outcome.memory.path.display().to_string(),
            index: dir.join(INDEX_FILE).display().to_string(),
            reason: match e {
                StoreError::Symlink { .. } => {
                    "it is a symbolic link, and Ambry does not write through links: remove the link"
                        .to_string()
                }
                other => other.to_string(),
            },
        })?;
        Ok(outcome)
    }

    /// Creates a memory that must not exist yet; the existence check and the write happen
    /// under the scope lock, so two creators of one name cannot both succeed.
    pub fn create(
        &self,
        scope: Scope,
        draft: MemoryDraft,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        let draft = validate_draft(draft)?;
        let dir = self.prepare_dir(scope)?;
        let _lock = lock_and_tidy(&dir, now)?;
        if dir.join(format!("{}.md", draft.name)).exists() {
            return Err(StoreError::AlreadyExists {
                scope: scope.to_string(),
                name: draft.name,
            });
        }
        let outcome = write_locked(scope, &dir, None, draft, &[], now)?;
        regenerate_index(scope, &dir)?;
        Ok(outcome)
    }

    /// Archives and removes a memory (and its embedding sidecar).
    pub fn forget(
        &self,
        scope: Scope,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<ForgetOutcome, StoreError> {
        validate_name(name)?;
        let dir = self.dir(scope)?;
        let not_found = || StoreError::NotFound {
            scope: format!("the {scope} scope"),
            name: name.to_string(),
        };
        if fs::symlink_metadata(dir.join(format!("{name}.md"))).is_err() {
            return Err(not_found());
        }
        let _lock = lock_and_tidy(&dir, now)?;
        let archived = remove_memory_files(&dir, name, now)?.ok_or_else(not_found)?;
        regenerate_index(scope, &dir)?;
        let version = archived
            .file_name()
            .and_then(|f| archive::parse_version_file_name(&f.to_string_lossy()))
            .map(|(_, version, _)| version)
            .unwrap_or_default();
        Ok(ForgetOutcome {
            scope,
            name: name.to_string(),
            archived,
            version,
        })
    }

    /// Archived versions, newest first; all memories of the scope or one.
    pub fn versions(
        &self,
        scope: Scope,
        name: Option<&str>,
    ) -> Result<Vec<ArchivedVersion>, StoreError> {
        if let Some(name) = name {
            validate_name(name)?;
        }
        let archive_dir = self.dir(scope)?.join(ARCHIVE_DIR);
        let entries = match fs::read_dir(&archive_dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io("read", &archive_dir, e)),
        };
        let mut versions = Vec::new();
        for entry in entries.flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let Some((memory, version, archived_at)) = archive::parse_version_file_name(&file_name)
            else {
                continue;
            };
            if name.is_some_and(|n| n != memory) {
                continue;
            }
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            versions.push(ArchivedVersion {
                scope,
                name: memory,
                version,
                archived_at,
                path: entry.path(),
                size,
            });
        }
        versions.sort_by(|a, b| b.version.cmp(&a.version).then_with(|| a.name.cmp(&b.name)));
        Ok(versions)
    }

    /// The text of one archived version (for previews and diffs).
    pub fn version_text(
        &self,
        scope: Scope,
        name: &str,
        version: &str,
    ) -> Result<String, StoreError> {
        let path = self.version_path(scope, name, version)?;
        read_text(&path)
    }

    /// Makes an archived version current again; the current file, if any, is archived first.
    /// A version that is not a valid memory of that name is refused before anything is written
    /// (restoring it would replace a working memory with one that cannot be read).
    pub fn restore(
        &self,
        scope: Scope,
        name: &str,
        version: &str,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        let source = self.version_path(scope, name, version)?;
        let dir = self.prepare_dir(scope)?;
        let _lock = lock_and_tidy(&dir, now)?;
        let text = read_text(&source)?;
        let refuse = |reason: String| StoreError::UnparseableVersion {
            name: name.to_string(),
            version: version.to_string(),
            path: source.display().to_string(),
            reason,
        };
        let doc = frontmatter::parse(&text).map_err(|e| refuse(e.to_string()))?;
        if doc.name != name {
            return Err(refuse(format!("its `name: {}` is not `{name}`", doc.name)));
        }
        canonical_type(&doc.kind).map_err(|e| refuse(e.to_string()))?;
        let current = dir.join(format!("{name}.md"));
        let created = fs::symlink_metadata(&current).is_err();
        let archived = if created {
            None
        } else {
            Some(archive_current(&dir, name, now)?)
        };
        write_atomic(&dir, &format!("{name}.md"), text.as_bytes())
            .map_err(|e| StoreError::io("write", &current, e))?;
        regenerate_index(scope, &dir)?;
        let memory = read_memory_file(scope, &current)
            .map_err(|reason| StoreError::UnparseableExisting {
                path: current.display().to_string(),
                reason,
            })?
            .ok_or_else(|| StoreError::NotFound {
                scope: format!("the {scope} scope"),
                name: name.to_string(),
            })?;
        Ok(SaveOutcome {
            memory,
            created,
            archived,
            changed: true,
        })
    }

    /// Deletes one archived version for good (a leaked secret's copy); the person asked for it
    /// by name and version, so nothing else is touched.
    pub fn purge_version(
        &self,
        scope: Scope,
        name: &str,
        version: &str,
    ) -> Result<PathBuf, StoreError> {
        let path = self.version_path(scope, name, version)?;
        let dir = self.dir(scope)?;
        let _lock = lock_scope(&dir)?;
        fs::remove_file(&path).map_err(|e| StoreError::io("remove", &path, e))?;
        sync_dir(&dir.join(ARCHIVE_DIR)).map_err(|e| StoreError::io("sync", &dir, e))?;
        Ok(path)
    }

    /// Removes archived versions beyond the policy; with `dry_run`, only reports them.
    pub fn prune(
        &self,
        filter: ScopeFilter,
        policy: &PrunePolicy,
        now: DateTime<Utc>,
        dry_run: bool,
    ) -> Result<PruneReport, StoreError> {
        let mut removed = Vec::new();
        let mut kept = 0;
        for scope in self.scopes(filter) {
            let dir = self.dir(scope)?;
            let _lock = if dry_run || !dir.exists() {
                None
            } else {
                Some(lock_and_tidy(&dir, now)?)
            };
            let versions = self.versions(scope, None)?;
            let doomed: Vec<ArchivedVersion> =
                archive::select_for_prune(&versions, policy, now, |_, name| {
                    dir.join(format!("{name}.md")).exists()
                })
                .into_iter()
                .cloned()
                .collect();
            kept += versions.len() - doomed.len();
            if !dry_run {
                for v in &doomed {
                    fs::remove_file(&v.path).map_err(|e| StoreError::io("remove", &v.path, e))?;
                }
                if !doomed.is_empty() {
                    sync_dir(&dir.join(ARCHIVE_DIR))
                        .map_err(|e| StoreError::io("sync", &dir, e))?;
                }
            }
            removed.extend(doomed);
        }
        Ok(PruneReport {
            dry_run,
            removed,
            kept,
        })
    }

    /// Index entries that disagree with the directory (for `doctor`); empty when consistent.
    pub fn index_drift(&self, scope: Scope) -> Result<Vec<String>, StoreError> {
        let files = list_dir(scope, &self.dir(scope)?)?;
        let on_disk: std::collections::BTreeSet<String> = files
            .iter()
            .filter(|f| f.parsed.is_ok())
            .map(|f| f.name.clone())
            .collect();
        let indexed: std::collections::BTreeSet<String> = self
            .index_text(scope)?
            .map(|t| {
                super::index::parse_index_entries(&t)
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect()
            })
            .unwrap_or_default();
        let mut drift: Vec<String> = on_disk
            .difference(&indexed)
            .map(|n| format!("{n} is missing from MEMORY.md"))
            .collect();
        drift.extend(
            indexed
                .difference(&on_disk)
                .map(|n| format!("MEMORY.md lists {n}, which is not a memory file")),
        );
        Ok(drift)
    }

    /// Rewrites a scope's MEMORY.md from its files (repairs drift after hand edits).
    pub fn reindex_scope(&self, scope: Scope) -> Result<(), StoreError> {
        let dir = self.prepare_dir(scope)?;
        let _lock = lock_scope(&dir)?;
        regenerate_index(scope, &dir)
    }

    fn version_path(&self, scope: Scope, name: &str, version: &str) -> Result<PathBuf, StoreError> {
        validate_name(name)?;
        let well_formed = version.split_once('.').is_some_and(|(n, t)| {
            !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && !t.is_empty()
                && t.bytes().all(|b| b.is_ascii_hexdigit())
        });
        let path = self
            .dir(scope)?
            .join(ARCHIVE_DIR)
            .join(archive::version_file_name(name, version));
        if !well_formed || !path.is_file() {
            return Err(StoreError::VersionNotFound {
                name: name.to_string(),
                version: version.to_string(),
            });
        }
        Ok(path)
    }

    /// Creates the scope directory if needed, refusing a symlinked one, and records the project.
    pub(super) fn prepare_dir(&self, scope: Scope) -> Result<PathBuf, StoreError> {
        let dir = self.dir(scope)?;
        crate::storage::create_private_dir_all(&dir)
            .map_err(|e| StoreError::io("create", &dir, e))?;
        refuse_symlink(&dir).map_err(|e| StoreError::io("write", &dir, e))?;
        if let (Scope::Project, Some(p)) = (scope, &self.project) {
            project::register(&self.home, p).map_err(|e| StoreError::Io {
                action: "record project",
                path: self.home.project_dir(&p.slug).display().to_string(),
                source: std::io::Error::other(e.to_string()),
            })?;
        }
        Ok(dir)
    }
}

/// Writes `draft` while the scope lock is held. `previous` names the file whose `created` and
/// unknown keys carry over when it differs from the draft's name (a rename).
fn write_locked(
    scope: Scope,
    dir: &Path,
    previous: Option<&str>,
    draft: MemoryDraft,
    keys: &[(&str, &str)],
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
fn key_line(key: &str, value: &str) -> String {
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
fn remove_memory_files(
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

/// A memory directory's file, bounded and only if regular; a missing file is `NotFound`.
fn read_bytes(path: &Path) -> Result<Vec<u8>, StoreError> {
    read_regular(path, MEMORY_FILE_MAX).map_err(|refusal| match refusal {
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

fn list_dir(scope: Scope, dir: &Path) -> Result<Vec<MemoryFile>, StoreError> {
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
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        // Listed with its reason, like any file that is not a memory: `get` then says the same.
        if let Some(what) = non_regular_kind(meta.file_type()) {
            let reason = NotAMemory::Unreadable(Arc::new(ReadRefusal::NotAFile(what)));
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
    let bytes = match read_regular(path, MEMORY_FILE_MAX) {
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

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
