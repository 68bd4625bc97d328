//! The store: the only code that reads and writes memory files (DESIGN §2–3).
//!
//! Owns: `Store` (a home and, when there is one, a project), its scopes and their directories,
//! listing and reading memories, and the write transactions on current memories (save,
//! create, forget, a scope's side files, MEMORY.md repairs): validate, refuse secrets, lock the
//! scope, archive the prior version, write atomically, regenerate MEMORY.md.
//! Deliberately does not: rank, embed or render; decide which project a cwd is (callers pass
//! the resolved `Project`); hold the write steps themselves (see `scope_write`), read a file
//! (see `scope_files`) or handle archived versions (see `versions`).

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::archive;
use super::bounded_read::{link_at, non_regular_kind, read_regular, ReadRefusal};
use super::frontmatter;
use super::index::INDEX_FILE;
use super::naming::validate_name;
use super::scope_files::{list_dir, read_memory_file};
use super::scope_write::{
    key_line, lock_and_tidy, lock_scope, regenerate_index, remove_memory_files, write_locked,
    SaveOutcome,
};
use super::validate::{validate_draft, INDEX_FILE_MAX};
use super::{Memory, MemoryDraft, MemoryFile, RuleEdit, Scope, ScopeFilter, StoreError};
use crate::home::AmbryHome;
use crate::project::{self, Project};
use crate::storage::{refuse_symlink, write_atomic};

#[derive(Debug, Clone, Serialize)]
pub struct ForgetOutcome {
    pub scope: Scope,
    pub name: String,
    pub archived: PathBuf,
    /// The archive version id to pass to `restore`.
    pub version: String,
}

#[derive(Debug, Clone)]
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

    /// The directory of a scope; project and team scope need a project (team: inside its
    /// working tree, `<repo>/.ambry/memory`).
    pub fn dir(&self, scope: Scope) -> Result<PathBuf, StoreError> {
        match scope {
            Scope::User => Ok(self.home.user_memory_dir()),
            Scope::Project => self
                .project
                .as_ref()
                .map(|p| self.home.project_memory_dir(&p.slug))
                .ok_or(StoreError::NoProject),
            Scope::Team => {
                let root = self
                    .project
                    .as_ref()
                    .filter(|p| !p.root.as_os_str().is_empty())
                    .map(|p| p.root.as_path())
                    .ok_or(StoreError::NoProject)?;
                super::team::refuse_links(root)?;
                Ok(super::team::team_dir(root))
            }
        }
    }

    /// The scopes a filter covers here: project and team only when there is a project, and
    /// team within `All` only once the person trusts the repository's team memory (DESIGN §15:
    /// other people's text reaches this person's agent only then). Asked for by name, team is
    /// always covered (to list and review it).
    pub fn scopes(&self, filter: ScopeFilter) -> Vec<Scope> {
        [Scope::User, Scope::Team, Scope::Project]
            .into_iter()
            .filter(|s| filter.includes(*s))
            .filter(|s| *s == Scope::User || self.project.is_some())
            .filter(|s| *s != Scope::Team || filter == ScopeFilter::Team || self.team_trusted())
            // A repository whose `.ambry` is a link has no team memory Ambry reads.
            .filter(|s| *s != Scope::Team || self.dir(*s).is_ok())
            .collect()
    }

    /// Whether the person trusts this repository's team memory (`ambry trust`).
    pub fn team_trusted(&self) -> bool {
        self.project
            .as_ref()
            .is_some_and(|p| super::team::is_trusted(&self.home, &p.slug))
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
            // A FIFO, device or link is no memory to fix or forget (forgetting archives, which
            // reads it): the advice that works is to move it out of the store.
            let meta = fs::symlink_metadata(&path).ok();
            if let Some(link) = meta
                .as_ref()
                .filter(|m| m.file_type().is_symlink())
                .map(|_| link_at(&path))
            {
                return Err(StoreError::Unreadable {
                    path: path.display().to_string(),
                    reason: format!(
                        "{link}; it is not a memory. Move it out of the memory folder (`mv {} …`)",
                        path.display()
                    ),
                });
            }
            if let Some(kind) = meta.and_then(|m| non_regular_kind(m.file_type())) {
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
        self.save_ruled(scope, draft, keys, &RuleEdit::Keep, now)
    }

    /// `save_with_keys`, also setting or removing the memory's rule (DESIGN §16): a rule that
    /// does not compile is refused, naming its field.
    pub fn save_ruled(
        &self,
        scope: Scope,
        draft: MemoryDraft,
        keys: &[(&str, &str)],
        rule: &RuleEdit,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        let draft = validate_draft(draft)?;
        if let RuleEdit::Set(rule) = rule {
            validate_rule(rule)?;
        }
        check_keys(keys)?;
        let dir = self.prepare_dir(scope)?;
        let _lock = lock_and_tidy(&dir, now)?;
        let outcome = write_locked(scope, &dir, None, draft, keys, rule, now)?;
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
        self.create_ruled(scope, draft, &RuleEdit::Keep, now)
    }

    /// `create`, with the memory's rule (DESIGN §16) written in the same file write.
    pub fn create_ruled(
        &self,
        scope: Scope,
        draft: MemoryDraft,
        rule: &RuleEdit,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        self.create_with_keys(scope, draft, &[], rule, now)
    }

    /// `create_ruled`, also setting frontmatter keys (as `save_with_keys` does) in the same write.
    pub fn create_with_keys(
        &self,
        scope: Scope,
        draft: MemoryDraft,
        keys: &[(&str, &str)],
        rule: &RuleEdit,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, StoreError> {
        let draft = validate_draft(draft)?;
        check_keys(keys)?;
        if let RuleEdit::Set(rule) = rule {
            validate_rule(rule)?;
        }
        let dir = self.prepare_dir(scope)?;
        let _lock = lock_and_tidy(&dir, now)?;
        if dir.join(format!("{}.md", draft.name)).exists() {
            return Err(StoreError::AlreadyExists {
                scope: scope.to_string(),
                name: draft.name,
            });
        }
        let outcome = write_locked(scope, &dir, None, draft, keys, rule, now)?;
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

    /// Creates the scope directory if needed, refusing a symlinked one, and records the project.
    pub(super) fn prepare_dir(&self, scope: Scope) -> Result<PathBuf, StoreError> {
        let dir = self.dir(scope)?;
        if scope == Scope::Team {
            let root = self
                .project
                .as_ref()
                .map(|p| p.root.clone())
                .unwrap_or_default();
            super::team::prepare(&root)?;
            return Ok(dir);
        }
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

/// Refuses extra keys a save may not set: a known field, a malformed key or multi-line value,
/// a lifecycle key that does not read, or `when` phrases out of bounds.
fn check_keys(keys: &[(&str, &str)]) -> Result<(), StoreError> {
    for (key, value) in keys {
        let known = [
            "name",
            "type",
            "description",
            "created",
            "updated",
            "tags",
            super::rule::RULE_KEY,
        ]
        .contains(key);
        if known || key.is_empty() || !key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
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
        frontmatter::lifecycle(&[key_line(key, value)]).map_err(|e| StoreError::InvalidField {
            field: "frontmatter key",
            reason: e.to_string(),
        })?;
        if *key == super::when::WHEN_KEY {
            let invalid = |reason: String| StoreError::InvalidField {
                field: "when",
                reason,
            };
            let phrases = frontmatter::list_value(value).map_err(|e| invalid(e.to_string()))?;
            super::when::check(&phrases).map_err(invalid)?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;

/// A rule about to be saved: it compiles, and its pattern is no secret (it is written in the file
/// and shown to the model as the reason of a refusal).
fn validate_rule(rule: &super::Enforce) -> Result<(), StoreError> {
    rule.compile().map_err(|e| StoreError::InvalidField {
        field: e.field,
        reason: e.reason,
    })?;
    if let Some(found) = super::secrets::find_secret(&rule.pattern) {
        return Err(StoreError::SecretDetected {
            kind: found.kind,
            excerpt: found.excerpt,
        });
    }
    Ok(())
}
