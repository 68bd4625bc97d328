//! This machine's side of a sync: the tree of what the home holds that travels.
//!
//! Owns: finding the allowlisted files of the home (never following a link, never reading past
//! the size bound), storing them as blobs, and holding back any file that changed here and
//! would not pass a save's checks — above all one that looks like a secret: it is never
//! committed, and the version last synced stays in the tree (so holding it back does not read
//! as a delete on the other machines).
//! Deliberately does not: merge or write the home.

use std::fs;
use std::path::PathBuf;

use super::allowlist::{slug_matches_remote, Kind};
use super::inspect::{inspect, Refused, READ_MAX};
use super::repo::{Entry, Repo, Tree};
use super::SyncError;
use ambry_store::home::AmbryHome;
use ambry_store::project;

/// The home's tree, and the files held back from it.
pub struct Exported {
    pub tree: Tree,
    pub withheld: Vec<Refused>,
}

/// The tree of what the home holds now; `head` is the tree last synced.
pub fn export(home: &AmbryHome, repo: &Repo, head: &Tree) -> Result<Exported, SyncError> {
    let mut files: Vec<(Kind, PathBuf)> = Vec::new();
    let mut withheld = Vec::new();
    let mut consider = |kind: Kind, path: PathBuf, withheld: &mut Vec<Refused>| {
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() && meta.len() <= READ_MAX => files.push((kind, path)),
            Ok(meta) if meta.is_file() => withheld.push(Refused {
                path: kind.tree_path(),
                reason: format!("is {} bytes, over the {READ_MAX}-byte limit", meta.len()),
            }),
            Ok(_) => withheld.push(Refused {
                path: kind.tree_path(),
                reason: "is not a regular file (a link?)".into(),
            }),
            Err(_) => {}
        }
    };
    consider(Kind::UserAnchor, home.user_anchor(), &mut withheld);
    scope_files(&home.user_memory_dir(), None, &mut |k, p| {
        consider(k, p, &mut withheld)
    });
    let mut remotes: Vec<(String, String)> = Vec::new();
    for known in project::known_projects(home).unwrap_or_default() {
        let Some(remote) = known.remote.as_deref() else {
            continue; // keyed by a path: its slug means nothing on another machine
        };
        if !slug_matches_remote(&known.slug, remote) {
            continue;
        }
        remotes.push((known.slug.clone(), remote.to_string()));
        scope_files(
            &home.project_memory_dir(&known.slug),
            Some(&known.slug),
            &mut |k, p| consider(k, p, &mut withheld),
        );
    }

    // A project synced before whose record lost its remote (a damaged or hand-edited
    // `project.toml`) still has its memories here: without this its files would read as deleted
    // and be forgotten on every other machine.
    let synced_remotes: Vec<(String, String)> = head
        .iter()
        .filter_map(|(path, e)| match Kind::of(path) {
            Ok(Kind::ProjectRemote { slug }) => Some((slug, e.hash.clone())),
            _ => None,
        })
        .filter(|(slug, _)| !remotes.iter().any(|(known, _)| known == slug))
        .filter(|(slug, _)| home.project_memory_dir(slug).is_dir())
        .collect();
    if !synced_remotes.is_empty() {
        let blobs = repo.read_blobs(synced_remotes.iter().map(|(_, h)| h))?;
        for (slug, hash) in synced_remotes {
            let remote = blobs
                .get(&hash)
                .map(|b| String::from_utf8_lossy(b).trim().to_string())
                .unwrap_or_default();
            if slug_matches_remote(&slug, &remote) {
                scope_files(&home.project_memory_dir(&slug), Some(&slug), &mut |k, p| {
                    consider(k, p, &mut withheld)
                });
                remotes.push((slug, remote));
            }
        }
    }

    let paths: Vec<PathBuf> = files.iter().map(|(_, p)| p.clone()).collect();
    let hashes = repo.hash_files(&paths)?;
    let mut tree = Tree::new();
    for ((kind, path), hash) in files.iter().zip(hashes) {
        let size = fs::symlink_metadata(path).map(|m| m.len()).unwrap_or(0);
        tree.insert(kind.tree_path(), Entry::file(hash, size));
    }
    for (slug, remote) in remotes {
        let text = format!("{remote}\n");
        let path = Kind::ProjectRemote { slug }.tree_path();
        let hash = repo.hash_bytes(text.as_bytes())?;
        tree.insert(path, Entry::file(hash, text.len() as u64));
    }

    // What changed since the last sync is checked as a remote's file would be: the blob
    // checked is the blob committed, so a file edited meanwhile cannot slip through.
    let changed: Vec<String> = tree
        .iter()
        .filter(|(path, e)| head.get(*path) != Some(*e))
        .map(|(_, e)| e.hash.clone())
        .collect();
    let blobs = repo.read_blobs(changed.iter())?;
    let refused: Vec<(String, String)> = tree
        .iter()
        .filter(|(path, e)| head.get(*path) != Some(*e))
        .filter_map(|(path, e)| {
            inspect(path, e, blobs.get(&e.hash).map(Vec::as_slice))
                .err()
                .map(|reason| (path.clone(), reason))
        })
        .collect();
    for (path, reason) in refused {
        tree.remove(&path);
        if let Some(last) = head.get(&path) {
            tree.insert(path.clone(), last.clone());
        }
        withheld.push(Refused { path, reason });
    }
    // A file held back for its kind (a link, too large) keeps its last synced version too.
    for w in &withheld {
        if let (false, Some(last)) = (tree.contains_key(&w.path), head.get(&w.path)) {
            tree.insert(w.path.clone(), last.clone());
        }
    }
    Ok(Exported { tree, withheld })
}

/// The memory files and retrieval tests of one scope directory.
fn scope_files(dir: &std::path::Path, project: Option<&str>, found: &mut dyn FnMut(Kind, PathBuf)) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = match project {
        Some(slug) => format!("projects/{slug}/memory/"),
        None => "memory/".to_string(),
    };
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if let Ok(kind) = Kind::of(&format!("{prefix}{name}")) {
            found(kind, entry.path());
        }
    }
}
