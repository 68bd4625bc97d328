//! Renaming a memory so that everything naming it follows (DESIGN §14): the memory is written
//! under its new name (`created` kept, the prior version archived), its archived history moves
//! to the new name (so the archive lists one memory, not a deleted one beside a new one), and
//! `[[links]]`, `superseded_by:` keys and retrieval-test cases (`tests.toml`) that name it in
//! either scope are updated, each an ordinary archived write.
//!
//! History is found by name (`.archive/<name>.<unix-nanos>.<rand>.md`), so a name must hold
//! one memory's versions only. The new name may already have archived versions: those of an
//! earlier memory of that name, since forgotten. They are set aside first, under the first free
//! name of `<new>-forgotten`, `<new>-forgotten-2`, … (free: no memory and no archived version
//! has it), their `name:` lines rewritten to match, so the renamed memory's history is only its
//! own and the earlier one's stays listed and restorable under a name that says what it is.
//!
//! Owns: that transaction (the memory and its history under the scope lock), rewriting the
//! `name:` line of moved versions (so a moved version restores under its new name), setting an
//! earlier memory's history aside, and the rule for which scope's references mean this memory
//! (a scope with its own memory of the old name means that one, not this one).
//! Deliberately does not: embed (the workspace writes the new vector) or judge the test cases
//! (it only renames the names they expect).

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::archive::{self, ARCHIVE_DIR};
use super::frontmatter;
use super::naming::validate_name;
use super::scope_files::{read_text, to_memory};
use super::scope_write::{archive_current, lock_and_tidy, regenerate_index};
use super::{MemoryDraft, NotAMemory, Scope, ScopeFilter, StoreError};
use super::{SaveOutcome, Store};
use crate::storage::{sync_dir, write_atomic};

/// The retrieval-case file of a scope (the compose module owns its format).
const CASES_FILE: &str = "tests.toml";

/// What a rename did, beyond the memory itself.
#[derive(Debug, Clone, Serialize)]
pub struct Renamed {
    #[serde(flatten)]
    pub outcome: SaveOutcome,
    pub old_name: String,
    /// Archived versions now listed under the new name (the one archived by this rename included).
    pub versions_moved: usize,
    /// The archived versions an earlier, forgotten memory of the new name had, now listed
    /// under another name (see the module header); `None` when there were none.
    pub earlier_history: Option<EarlierHistory>,
    /// Other memories whose `[[old]]` links or `superseded_by: old` now name the new name.
    pub relinked: Vec<Relinked>,
    /// `tests.toml` files whose cases expected the old name.
    pub cases_updated: Vec<PathBuf>,
    /// Follow-up steps that could not be done (the rename itself is done); each says what to fix.
    pub notes: Vec<String>,
}

/// Where the history of an earlier memory of the new name went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EarlierHistory {
    /// The name its versions are listed and restored under now.
    pub name: String,
    pub versions: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Relinked {
    pub scope: Scope,
    pub name: String,
}

impl Store {
    /// Renames `old` to `new` in `scope`, keeping its history, links and test cases (see the
    /// module header). Refused when `new` is invalid, reserved or taken, or `old` is missing or
    /// does not parse; nothing is written then.
    pub fn rename_keeping_history(
        &self,
        scope: Scope,
        old: &str,
        new: &str,
        now: DateTime<Utc>,
    ) -> Result<Renamed, StoreError> {
        validate_name(old)?;
        validate_name(new)?;
        if old == new {
            return Err(StoreError::InvalidField {
                field: "name",
                reason: format!("`{new}` is already the memory's name"),
            });
        }
        let dir = self.prepare_dir(scope)?;
        let (outcome, versions_moved, earlier_history) = {
            let _lock = lock_and_tidy(&dir, now)?;
            move_locked(scope, &dir, old, new, now)?
        };
        let mut renamed = Renamed {
            outcome,
            old_name: old.to_string(),
            versions_moved,
            earlier_history,
            relinked: Vec::new(),
            cases_updated: Vec::new(),
            notes: Vec::new(),
        };
        for other in self.scopes(ScopeFilter::All) {
            if other != scope && self.dir(other)?.join(format!("{old}.md")).exists() {
                // There `[[old]]` means that scope's own memory of the name.
                continue;
            }
            self.relink(other, old, new, now, &mut renamed);
            self.rename_in_cases(other, old, new, &mut renamed);
        }
        Ok(renamed)
    }

    /// Rewrites every memory of `scope` that names `old` (links, `superseded_by`).
    fn relink(
        &self,
        scope: Scope,
        old: &str,
        new: &str,
        now: DateTime<Utc>,
        renamed: &mut Renamed,
    ) {
        let files = match self.list(scope.into()) {
            Ok(files) => files,
            Err(e) => {
                renamed
                    .notes
                    .push(format!("links in the {scope} scope were not updated: {e}"));
                return;
            }
        };
        for memory in files.iter().filter_map(|f| f.parsed.as_ref().ok()) {
            let body = relinked_text(&memory.body, old, new);
            let supersedes = memory.lifecycle.superseded_by.as_deref() == Some(old);
            if body.is_none() && !supersedes {
                continue;
            }
            let draft = MemoryDraft {
                name: memory.name.clone(),
                kind: memory.kind.clone(),
                description: memory.description.clone(),
                body: body.unwrap_or_else(|| memory.body.clone()),
                tags: memory.tags.clone(),
            };
            let keys: &[(&str, &str)] = if supersedes {
                &[("superseded_by", new)]
            } else {
                &[]
            };
            match self.save_with_keys(scope, draft, keys, now) {
                Ok(_) => renamed.relinked.push(Relinked {
                    scope,
                    name: memory.name.clone(),
                }),
                Err(e) => renamed
                    .notes
                    .push(format!("{scope}/{} still names `{old}`: {e}", memory.name)),
            }
        }
    }

    /// Renames `old` in the expectations of `scope`'s `tests.toml`, comments and layout kept.
    fn rename_in_cases(&self, scope: Scope, old: &str, new: &str, renamed: &mut Renamed) {
        let Ok(dir) = self.dir(scope) else { return };
        let path = dir.join(CASES_FILE);
        let Ok(text) = fs::read_to_string(&path) else {
            return;
        };
        match cases_renamed(&text, old, new) {
            Ok(None) => {}
            Ok(Some(_)) => {
                let edited = self.edit_side_file(scope, CASES_FILE, |current, _| {
                    cases_renamed(current.unwrap_or(""), old, new)
                        .map(|t| t.unwrap_or_else(|| current.unwrap_or("").to_string()))
                        .map_err(|reason| StoreError::Unreadable {
                            path: path.display().to_string(),
                            reason,
                        })
                });
                match edited {
                    Ok(path) => renamed.cases_updated.push(path),
                    Err(e) => renamed
                        .notes
                        .push(format!("cases naming `{old}` kept: {e}")),
                }
            }
            Err(reason) => renamed.notes.push(format!(
                "{} was not updated (it is not valid TOML: {reason}); rename `{old}` there by hand",
                path.display()
            )),
        }
    }
}

/// The rename proper, under the scope lock: returns the new memory, how many versions moved
/// and where an earlier memory's history under the new name went.
fn move_locked(
    scope: Scope,
    dir: &Path,
    old: &str,
    new: &str,
    now: DateTime<Utc>,
) -> Result<(SaveOutcome, usize, Option<EarlierHistory>), StoreError> {
    let old_path = dir.join(format!("{old}.md"));
    let new_path = dir.join(format!("{new}.md"));
    if fs::symlink_metadata(&new_path).is_ok() {
        return Err(StoreError::AlreadyExists {
            scope: scope.to_string(),
            name: new.to_string(),
        });
    }
    if fs::symlink_metadata(&old_path).is_err() {
        return Err(StoreError::NotFound {
            scope: format!("the {scope} scope"),
            name: old.to_string(),
        });
    }
    let unparseable = |reason: NotAMemory| StoreError::UnparseableExisting {
        path: old_path.display().to_string(),
        reason,
    };
    let mut doc = frontmatter::parse(&read_text(&old_path)?).map_err(|e| unparseable(e.into()))?;
    if doc.name != old {
        return Err(unparseable(NotAMemory::NameMismatch {
            name: doc.name,
            stem: old.to_string(),
        }));
    }
    let archive_dir = dir.join(ARCHIVE_DIR);
    // Before anything of this memory's history is filed under `new`.
    let earlier_history = set_aside_earlier_history(dir, &archive_dir, new)?;
    let archived = archive_current(dir, old, now)?;
    doc.name = new.to_string();
    doc.updated = Some(now);
    write_atomic(
        dir,
        &format!("{new}.md"),
        frontmatter::render(&doc).as_bytes(),
    )
    .map_err(|e| StoreError::io("write", &new_path, e))?;
    let moved = move_versions(&archive_dir, old, new)?;
    fs::remove_file(&old_path).map_err(|e| StoreError::io("remove", &old_path, e))?;
    let sidecar = dir.join(format!("{old}.vec"));
    if let Err(e) = fs::remove_file(&sidecar) {
        if e.kind() != std::io::ErrorKind::NotFound {
            return Err(StoreError::io("remove", &sidecar, e));
        }
    }
    sync_dir(dir).map_err(|e| StoreError::io("sync", dir, e))?;
    regenerate_index(scope, dir)?;
    let archived = archived
        .file_name()
        .and_then(|f| archive::parse_version_file_name(&f.to_string_lossy()))
        .map(|(_, version, _)| archive_dir.join(archive::version_file_name(new, &version)));
    Ok((
        SaveOutcome {
            memory: to_memory(scope, &new_path, doc),
            created: false,
            archived,
            changed: true,
        },
        moved,
        earlier_history,
    ))
}

/// Moves the archived versions of an earlier memory named `name` (there is no current one: the
/// rename checked) to the first free `<name>-forgotten[-N]`; `None` when there are none.
fn set_aside_earlier_history(
    dir: &Path,
    archive_dir: &Path,
    name: &str,
) -> Result<Option<EarlierHistory>, StoreError> {
    let archived_names = archived_names(archive_dir)?;
    if !archived_names.contains(name) {
        return Ok(None);
    }
    let taken = |candidate: &str| {
        archived_names.contains(candidate)
            || fs::symlink_metadata(dir.join(format!("{candidate}.md"))).is_ok()
    };
    let aside = (1..)
        .map(|n| forgotten_name(name, n))
        .find(|candidate| validate_name(candidate).is_ok() && !taken(candidate))
        .expect("some numbered name is free");
    let versions = move_versions(archive_dir, name, &aside)?;
    Ok(Some(EarlierHistory {
        name: aside,
        versions,
    }))
}

/// `<name>-forgotten` (n = 1) or `<name>-forgotten-<n>`, `name` shortened to keep it a valid name.
fn forgotten_name(name: &str, n: usize) -> String {
    let suffix = match n {
        1 => "-forgotten".to_string(),
        n => format!("-forgotten-{n}"),
    };
    let room = 64usize.saturating_sub(suffix.len());
    let base = name[..name.len().min(room)].trim_end_matches('-');
    format!("{base}{suffix}")
}

/// Every memory name that has archived versions in `archive_dir`.
fn archived_names(archive_dir: &Path) -> Result<std::collections::BTreeSet<String>, StoreError> {
    let entries = match fs::read_dir(archive_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => return Err(StoreError::io("read", archive_dir, e)),
    };
    Ok(entries
        .flatten()
        .filter_map(|e| archive::parse_version_file_name(&e.file_name().to_string_lossy()))
        .map(|(name, _, _)| name)
        .collect())
}

/// Moves every archived version of `old` to `new` (same version id), its `name:` line
/// rewritten so it restores under the new name. A version that is not UTF-8 text moves as is.
fn move_versions(archive_dir: &Path, old: &str, new: &str) -> Result<usize, StoreError> {
    let entries = match fs::read_dir(archive_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(StoreError::io("read", archive_dir, e)),
    };
    let mut moved = 0;
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some((name, version, _)) = archive::parse_version_file_name(&file_name) else {
            continue;
        };
        if name != old || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let target = archive::version_file_name(new, &version);
        let source = entry.path();
        match read_text(&source) {
            Ok(text) => {
                let mode = entry.metadata().ok().map(|m| {
                    use std::os::unix::fs::PermissionsExt;
                    m.permissions().mode()
                });
                crate::storage::write_atomic_with_mode(
                    archive_dir,
                    &target,
                    retitled(&text, old, new).as_bytes(),
                    mode,
                )
                .map_err(|e| StoreError::io("archive", archive_dir, e))?;
                fs::remove_file(&source).map_err(|e| StoreError::io("remove", &source, e))?;
            }
            Err(_) => fs::rename(&source, archive_dir.join(&target))
                .map_err(|e| StoreError::io("archive", &source, e))?,
        }
        moved += 1;
    }
    sync_dir(archive_dir).map_err(|e| StoreError::io("sync", archive_dir, e))?;
    Ok(moved)
}

/// `text` with its frontmatter's `name: old` line replaced by `name: new`; every other byte kept.
fn retitled(text: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(text.len() + new.len());
    let mut in_header = false;
    let mut done = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if i == 0 && bare.trim_start_matches('\u{feff}') == "---" {
            in_header = true;
        } else if in_header && bare == "---" {
            in_header = false;
        } else if in_header && !done {
            if let Some(value) = bare.strip_prefix("name:") {
                if frontmatter::unquote(value).is_ok_and(|v| v == old) {
                    out.push_str(&format!("name: {new}"));
                    out.push_str(&line[bare.len()..]);
                    done = true;
                    continue;
                }
            }
        }
        out.push_str(line);
    }
    out
}

/// `text` with `[[old]]`, `[[old|label]]` and `[[old#part]]` pointing at `new`; `None` when
/// nothing links to `old`.
fn relinked_text(text: &str, old: &str, new: &str) -> Option<String> {
    let pattern = regex::Regex::new(&format!(r"\[\[{}(\]\]|\||#)", regex::escape(old)))
        .expect("a valid name makes a valid pattern");
    pattern
        .is_match(text)
        .then(|| pattern.replace_all(text, format!("[[{new}$1")).into_owned())
}

/// A `tests.toml` text with `old` renamed in every case's `expect`; `None` when no case names it.
fn cases_renamed(text: &str, old: &str, new: &str) -> Result<Option<String>, String> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string().trim().to_string())?;
    let mut changed = false;
    if let Some(cases) = doc.get_mut("case").and_then(|c| c.as_array_of_tables_mut()) {
        for case in cases.iter_mut() {
            // Both what a case expects and what it rejects name memories.
            for key in ["expect", "reject"] {
                let Some(names) = case.get_mut(key).and_then(|e| e.as_array_mut()) else {
                    continue;
                };
                for value in names.iter_mut() {
                    if value.as_str() == Some(old) {
                        let decor = value.decor().clone();
                        *value = toml_edit::Value::from(new);
                        *value.decor_mut() = decor;
                        changed = true;
                    }
                }
            }
        }
    }
    Ok(changed.then(|| doc.to_string()))
}

#[cfg(test)]
#[path = "rename_tests.rs"]
mod tests;
