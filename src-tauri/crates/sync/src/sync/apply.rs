//! What came in, written into the home through the store's ordinary write path (DESIGN §15):
//! memories by `Store::apply_synced` (checked as a save, scope lock, prior version archived,
//! atomic write, MEMORY.md regenerated, the stale sidecar dropped), retrieval tests through
//! the scope's side-file edit, the person's anchor through the anchor writer (its prior text
//! kept under `sync/replaced/`), a project's remote through the project registry.
//!
//! Owns: turning the difference between the tree this machine sent and the merged tree into
//! those writes, each only when the home still holds what was sent (a file changed here
//! meanwhile is left alone and goes out next time) — which also makes applying twice harmless,
//! so an interrupted sync is finished by applying again.
//! Deliberately does not: merge, or talk to a remote.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::allowlist::Kind;
use super::repo::Tree;
use super::SyncError;
use ambry_store::home::AmbryHome;
use ambry_store::memory::bounded_read::{read_regular_unlinked, ReadRefusal};
use ambry_store::memory::validate::MEMORY_FILE_MAX;
use ambry_store::memory::{Scope, Store, SyncedFile, SyncedOutcome};
use ambry_store::project::{self, Project};

/// What applying wrote, and what it left alone.
#[derive(Debug, Default)]
pub struct Applied {
    pub written: Vec<String>,
    pub removed: Vec<String>,
    /// Changed here while the sync ran: left as they are.
    pub changed_here: Vec<String>,
    /// Refused by the store's own checks (the merge's checks should have caught them).
    pub refused: Vec<super::inspect::Refused>,
}

/// The paths of the home the merged tree changes, relative to what this machine sent.
pub fn changed_paths(sent: &Tree, merged: &Tree) -> Vec<(String, Kind)> {
    let mut paths: Vec<&String> = sent.keys().chain(merged.keys()).collect();
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .filter(|p| sent.get(*p) != merged.get(*p))
        .filter_map(|p| Kind::of(p).ok().map(|k| (p.clone(), k)))
        .collect()
}

/// Writes `merged` over what the home held as `sent`. `blobs` has every blob of both trees
/// on a changed path.
pub fn apply(
    home: &AmbryHome,
    sent: &Tree,
    merged: &Tree,
    blobs: &HashMap<String, Vec<u8>>,
    now: DateTime<Utc>,
) -> Result<Applied, SyncError> {
    let bytes = |tree: &Tree, path: &str| -> Option<Vec<u8>> {
        tree.get(path).and_then(|e| blobs.get(&e.hash)).cloned()
    };
    let mut applied = Applied::default();
    let changes = changed_paths(sent, merged);
    // Projects first: their memories are written under a project the home then knows.
    for (path, kind) in &changes {
        if let (Kind::ProjectRemote { slug }, Some(text)) = (kind, bytes(merged, path)) {
            let remote = String::from_utf8_lossy(&text).trim().to_string();
            project::register(
                home,
                &Project {
                    slug: slug.clone(),
                    root: PathBuf::new(),
                    remote: Some(remote),
                },
            )
            .map_err(|e| SyncError::Io {
                action: "record project",
                path: home.project_dir(slug).display().to_string(),
                source: std::io::Error::other(e.to_string()),
            })?;
            applied.written.push(path.clone());
        }
    }
    let mut by_scope: BTreeMap<Option<String>, Vec<SyncedFile>> = BTreeMap::new();
    let mut paths_of: HashMap<(Option<String>, String), String> = HashMap::new();
    for (path, kind) in &changes {
        match kind {
            Kind::Memory { project, name } => {
                by_scope
                    .entry(project.clone())
                    .or_default()
                    .push(SyncedFile {
                        name: name.clone(),
                        expected: bytes(sent, path),
                        new: bytes(merged, path),
                    });
                paths_of.insert((project.clone(), name.clone()), path.clone());
            }
            Kind::Tests { project } => {
                let outcome = apply_side_file(
                    &store_for(home, project.as_deref()),
                    scope_of(project),
                    bytes(sent, path),
                    bytes(merged, path),
                )?;
                record(&mut applied, path, outcome);
            }
            Kind::UserAnchor => {
                let outcome = apply_anchor(home, bytes(sent, path), bytes(merged, path), now)?;
                record(&mut applied, path, outcome);
            }
            Kind::ProjectRemote { .. } => {}
        }
    }
    for (project, files) in by_scope {
        let store = store_for(home, project.as_deref());
        let outcomes = store.apply_synced(scope_of(&project), files, Vec::new(), now)?;
        for (name, outcome) in outcomes {
            let path = paths_of
                .get(&(project.clone(), name.clone()))
                .cloned()
                .unwrap_or(name);
            match outcome {
                Ok(outcome) => record(&mut applied, &path, outcome),
                Err(e) => applied.refused.push(super::inspect::Refused {
                    path,
                    reason: e.to_string(),
                }),
            }
        }
    }
    Ok(applied)
}

/// Archives each version from the other machine that lost a conflict.
pub fn archive_losers(
    home: &AmbryHome,
    losers: &[(Kind, Vec<u8>)],
    now: DateTime<Utc>,
) -> Result<(), SyncError> {
    let mut by_scope: BTreeMap<Option<String>, Vec<(String, Vec<u8>)>> = BTreeMap::new();
    for (kind, text) in losers {
        if let Kind::Memory { project, name } = kind {
            by_scope
                .entry(project.clone())
                .or_default()
                .push((name.clone(), text.clone()));
        }
    }
    for (project, texts) in by_scope {
        store_for(home, project.as_deref()).apply_synced(
            scope_of(&project),
            Vec::new(),
            texts,
            now,
        )?;
    }
    Ok(())
}

fn record(applied: &mut Applied, path: &str, outcome: SyncedOutcome) {
    match outcome {
        SyncedOutcome::Written => applied.written.push(path.to_string()),
        SyncedOutcome::Removed => applied.removed.push(path.to_string()),
        SyncedOutcome::AlreadyThere => {}
        SyncedOutcome::ChangedHere => applied.changed_here.push(path.to_string()),
    }
}

fn scope_of(project: &Option<String>) -> Scope {
    if project.is_some() {
        Scope::Project
    } else {
        Scope::User
    }
}

fn store_for(home: &AmbryHome, slug: Option<&str>) -> Store {
    Store::new(
        home.clone(),
        slug.map(|slug| Project {
            slug: slug.to_string(),
            root: PathBuf::new(),
            remote: None,
        }),
    )
}

fn current(path: &std::path::Path) -> Result<Option<Vec<u8>>, SyncError> {
    match read_regular_unlinked(path, MEMORY_FILE_MAX) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(ReadRefusal::Missing) => Ok(None),
        Err(ReadRefusal::Io(e)) => Err(SyncError::io("read", path, e)),
        Err(other) => Err(SyncError::Io {
            action: "read",
            path: path.display().to_string(),
            source: std::io::Error::other(other.to_string()),
        }),
    }
}

/// A scope's retrieval tests, under the scope lock.
fn apply_side_file(
    store: &Store,
    scope: Scope,
    expected: Option<Vec<u8>>,
    new: Option<Vec<u8>>,
) -> Result<SyncedOutcome, SyncError> {
    let file = ambry_store::memory::CASES_FILE;
    let path = store.dir(scope)?.join(file);
    let now_there = current(&path)?;
    if now_there == new {
        return Ok(SyncedOutcome::AlreadyThere);
    }
    if now_there != expected {
        return Ok(SyncedOutcome::ChangedHere);
    }
    match new {
        Some(text) => {
            let text = String::from_utf8_lossy(&text).into_owned();
            store
                .edit_side_file::<ambry_store::memory::StoreError>(scope, file, |_, _| Ok(text))?;
            Ok(SyncedOutcome::Written)
        }
        None => {
            std::fs::remove_file(&path).map_err(|e| SyncError::io("remove", &path, e))?;
            Ok(SyncedOutcome::Removed)
        }
    }
}

/// USER.md: its prior text kept under `sync/replaced/` (it has no archive of its own).
fn apply_anchor(
    home: &AmbryHome,
    expected: Option<Vec<u8>>,
    new: Option<Vec<u8>>,
    now: DateTime<Utc>,
) -> Result<SyncedOutcome, SyncError> {
    let path = home.user_anchor();
    let now_there = current(&path)?;
    if now_there == new {
        return Ok(SyncedOutcome::AlreadyThere);
    }
    if now_there != expected {
        return Ok(SyncedOutcome::ChangedHere);
    }
    if let Some(old) = &now_there {
        let dir = home.sync_dir().join("replaced");
        ambry_store::storage::create_private_dir_all(&dir)
            .map_err(|e| SyncError::io("create", &dir, e))?;
        let name = format!(
            "USER.{}.md",
            ambry_store::memory::archive::new_version_id(now)
        );
        ambry_store::storage::write_atomic(&dir, &name, old)
            .map_err(|e| SyncError::io("write", &dir.join(&name), e))?;
    }
    match new {
        Some(text) => {
            ambry_store::anchors::save(&path, &String::from_utf8_lossy(&text)).map_err(|e| {
                SyncError::Io {
                    action: "write",
                    path: path.display().to_string(),
                    source: std::io::Error::other(e.to_string()),
                }
            })?;
            Ok(SyncedOutcome::Written)
        }
        None => {
            std::fs::remove_file(&path).map_err(|e| SyncError::io("remove", &path, e))?;
            Ok(SyncedOutcome::Removed)
        }
    }
}
