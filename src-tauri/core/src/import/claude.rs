//! `ambry import claude`: Claude Code's auto-memory
//! (`<claude dir>/projects/<dashed repo path>/memory/*.md`) into Ambry project scopes.
//!
//! Owns: walking the memory directories, resolving each to its repository (decoded against the
//! filesystem) and Ambry project, turning each topic file into a memory (name normalized, type
//! and body kept, `source: <file>` recorded), and the report of what was created, updated, left
//! unchanged, skipped (with why) or could not be placed.
//! Deliberately does not: write Claude Code's files, import `MEMORY.md` (an index, not a
//! memory), or overwrite a memory that was not imported from the same file.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::dashed_path::decode_dashed_path;
use super::error::ImportError;
use ambry_store::home::AmbryHome;
use ambry_store::memory::bounded_read::{read_regular, ReadRefusal};
use ambry_store::memory::frontmatter;
use ambry_store::memory::naming::{canonical_type, RESERVED_NAMES};
use ambry_store::memory::validate::MEMORY_FILE_MAX;
use ambry_store::memory::{MemoryDraft, Scope, Store};
use ambry_store::project;

/// The frontmatter key recording where an imported memory came from.
pub const SOURCE_KEY: &str = "source";

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ImportOutcome {
    Created,
    Updated,
    Unchanged,
    Skipped { reason: String },
}

#[derive(Debug, Clone, Serialize)]
pub struct ImportItem {
    pub source: PathBuf,
    /// The Ambry project slug (`None` when the file was skipped before a project was known).
    pub project: Option<String>,
    pub project_root: Option<PathBuf>,
    pub name: String,
    #[serde(flatten)]
    pub outcome: ImportOutcome,
}

/// A memory directory whose name decodes to no existing directory: listed, never guessed.
#[derive(Debug, Clone, Serialize)]
pub struct Unresolved {
    pub dir: PathBuf,
    pub topic_files: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    pub dry_run: bool,
    pub items: Vec<ImportItem>,
    pub unresolved: Vec<Unresolved>,
}

impl ImportReport {
    pub fn count(&self, pred: impl Fn(&ImportOutcome) -> bool) -> usize {
        self.items.iter().filter(|i| pred(&i.outcome)).count()
    }
}

/// Imports every topic file under `claude_projects`. `fs_root` is where dashed paths are decoded
/// from (`/` in real use). A missing `claude_projects` is an empty report.
pub fn import_claude(
    home: &AmbryHome,
    claude_projects: &Path,
    fs_root: &Path,
    dry_run: bool,
    now: DateTime<Utc>,
) -> Result<ImportReport, ImportError> {
    let mut report = ImportReport {
        dry_run,
        items: Vec::new(),
        unresolved: Vec::new(),
    };
    let mut dirs: Vec<PathBuf> = match fs::read_dir(claude_projects) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("memory").is_dir())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(report),
        Err(e) => return Err(ImportError::read(claude_projects, e)),
    };
    dirs.sort();
    // (slug, name) → source, so two files never fight over one memory within a run.
    let mut claimed: HashMap<(String, String), PathBuf> = HashMap::new();
    for dir in dirs {
        let memory_dir = dir.join("memory");
        let topics = topic_files(&memory_dir).map_err(|e| ImportError::read(&memory_dir, e))?;
        if topics.is_empty() {
            continue;
        }
        let dashed = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(repo_dir) = decode_dashed_path(&dashed, fs_root) else {
            report.unresolved.push(Unresolved {
                dir: dir.clone(),
                topic_files: topics.len(),
            });
            continue;
        };
        let project = match project::resolve(&repo_dir) {
            Ok(p) => p,
            Err(e) => {
                report.unresolved.push(Unresolved {
                    dir: dir.clone(),
                    topic_files: topics.len(),
                });
                tracing::warn!("{}: {e}", dir.display());
                continue;
            }
        };
        let store = Store::new(home.clone(), Some(project.clone()));
        for source in topics {
            let (name, outcome) = import_one(&store, &source, &mut claimed, dry_run, now);
            report.items.push(ImportItem {
                source,
                project: Some(project.slug.clone()),
                project_root: Some(project.root.clone()),
                name,
                outcome,
            });
        }
    }
    Ok(report)
}

/// `*.md` files except `MEMORY.md`, sorted.
fn topic_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension().is_some_and(|e| e == "md")
                && p.file_name().is_some_and(|n| n != "MEMORY.md")
        })
        .collect();
    files.sort();
    Ok(files)
}

fn import_one(
    store: &Store,
    source: &Path,
    claimed: &mut HashMap<(String, String), PathBuf>,
    dry_run: bool,
    now: DateTime<Utc>,
) -> (String, ImportOutcome) {
    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = normalize_name(&stem);
    let skip = |reason: String| ImportOutcome::Skipped { reason };
    let draft = match read_topic(source, &name) {
        Ok(d) => d,
        Err(reason) => return (name, skip(reason)),
    };
    let slug = store.project().map(|p| p.slug.clone()).unwrap_or_default();
    if let Some(other) = claimed.get(&(slug.clone(), name.clone())) {
        return (
            name.clone(),
            skip(format!(
                "{} already became `{name}` in this project",
                other.display()
            )),
        );
    }
    let source_text = source.display().to_string();
    let existing = match existing_source(store, &name) {
        Ok(e) => e,
        Err(reason) => return (name, skip(reason)),
    };
    match &existing {
        Some(Some(from)) if *from == source_text => {}
        Some(_) => {
            return (name.clone(), skip(format!("a memory named `{name}` already exists in this project and was not imported from this file")));
        }
        None => {}
    }
    claimed.insert((slug, name.clone()), source.to_path_buf());
    if dry_run {
        let outcome = match existing {
            None => ImportOutcome::Created,
            Some(_) if unchanged(store, &draft) => ImportOutcome::Unchanged,
            Some(_) => ImportOutcome::Updated,
        };
        return (name, outcome);
    }
    match store.save_with_keys(Scope::Project, draft, &[(SOURCE_KEY, &source_text)], now) {
        Ok(o) if o.created => (name, ImportOutcome::Created),
        Ok(o) if o.changed => (name, ImportOutcome::Updated),
        Ok(_) => (name, ImportOutcome::Unchanged),
        Err(e) => (name, skip(e.to_string())),
    }
}

/// `feedback_testing` → `feedback-testing`: lowercase, runs of other characters one hyphen,
/// at most 64 characters; a reserved name gets `-notes`.
pub fn normalize_name(stem: &str) -> String {
    let mut out = String::new();
    for c in stem.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out: String = out.trim_end_matches('-').chars().take(64).collect();
    out = out.trim_end_matches('-').to_string();
    if RESERVED_NAMES.contains(&out.as_str()) {
        out.push_str("-notes");
    }
    out
}

/// The draft for a topic file: its type, description and body; a missing description becomes
/// the body's first line.
fn read_topic(source: &Path, name: &str) -> Result<MemoryDraft, String> {
    if name.is_empty() {
        return Err("the file name has no letters or digits to make a memory name from".into());
    }
    let text = read_bounded(source).map_err(|e| format!("cannot read: {e}"))?;
    let doc = frontmatter::parse(&text).map_err(|e| e.to_string())?;
    let kind = canonical_type(&doc.kind).map_err(|e| e.to_string())?;
    let mut description = doc.description.trim().to_string();
    if description.is_empty() {
        description = doc
            .body
            .lines()
            .map(|l| l.trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .chars()
            .take(200)
            .collect();
    }
    if description.is_empty() {
        return Err("no description and an empty body: nothing to import".into());
    }
    Ok(MemoryDraft {
        name: name.to_string(),
        kind,
        description,
        body: doc.body,
        tags: doc.tags,
    })
}

/// `None`: no memory of that name. `Some(source)`: one exists, with its `source` key if any.
fn existing_source(store: &Store, name: &str) -> Result<Option<Option<String>>, String> {
    let path = store
        .dir(Scope::Project)
        .map_err(|e| e.to_string())?
        .join(format!("{name}.md"));
    let text = match read_bounded(&path) {
        Ok(t) => t,
        Err(ReadRefusal::Missing) => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let doc =
        frontmatter::parse(&text).map_err(|e| format!("{} does not parse: {e}", path.display()))?;
    Ok(Some(source_of(&doc)))
}

/// A memory-sized text file: regular, bounded (a FIFO or `/dev/zero` named like a topic file
/// must not hang or fill the import), UTF-8.
fn read_bounded(path: &Path) -> Result<String, ReadRefusal> {
    let bytes = read_regular(path, MEMORY_FILE_MAX)?;
    String::from_utf8(bytes).map_err(|_| {
        ReadRefusal::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not UTF-8 text",
        ))
    })
}

fn source_of(doc: &frontmatter::Document) -> Option<String> {
    doc.extra.iter().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key == SOURCE_KEY)
            .then(|| frontmatter::unquote(value.trim()).ok())
            .flatten()
    })
}

/// For a dry run: would saving `draft` change the stored memory? (Its `source` already matches.)
fn unchanged(store: &Store, draft: &MemoryDraft) -> bool {
    let Ok(current) = store.get(Some(Scope::Project), &draft.name) else {
        return false;
    };
    let mut body = draft.body.clone();
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    current.kind == draft.kind
        && current.description == draft.description.trim()
        && current.body == body
        && current.tags == draft.tags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO, `/dev/zero` or an oversized file named like a topic file is refused at once.
    #[test]
    fn topic_files_are_read_bounded_and_regular_only() {
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("waits.md");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(read_topic(&fifo, "waits")
            .unwrap_err()
            .contains("not a regular file"));
        let zero = tmp.path().join("zero.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(read_topic(&zero, "zero").is_err());
        let big = tmp.path().join("big.md");
        fs::write(&big, "x".repeat(MEMORY_FILE_MAX as usize + 1)).unwrap();
        assert!(read_topic(&big, "big").is_err());
    }

    #[test]
    fn names_follow_ambry_rules() {
        assert_eq!(normalize_name("feedback_testing"), "feedback-testing");
        assert_eq!(normalize_name("Project Notes (v2)"), "project-notes-v2");
        assert_eq!(normalize_name("feedback"), "feedback-notes");
        assert_eq!(normalize_name("__"), "");
        assert_eq!(normalize_name(&"a".repeat(80)).len(), 64);
    }
}
