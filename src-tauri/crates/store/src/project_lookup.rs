//! Remembering which project a working directory belongs to, for long-lived processes.
//!
//! `project::resolve` starts git up to three times; the compose service answers every agent turn
//! for the same few directories, so it asks this lookup instead. An answer is reused only while
//! nothing git would read to find it has changed: the `.git` directory nearest the working
//! directory (or its absence in every ancestor) and that repository's `config`, compared by
//! inode, size and modification time. A linked worktree (`.git` is a file pointing elsewhere)
//! is never remembered: what decides its identity lives in another repository.
//!
//! Owns: the remembered answers and their validity check.
//! Deliberately does not: decide a project's identity (`project::resolve` does), or expire
//! answers by time (nothing here reads the clock).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::project::{self, Project, ProjectError};

/// More distinct working directories than this and the lookup starts afresh: bounded memory for
/// a service that lives for days.
const REMEMBERED_DIRECTORIES: usize = 256;

/// Identity of a file as last seen: inode, size, modification time (s, ns).
type FileStamp = (u64, u64, i64, i64);

/// What git would find from a directory: the nearest `.git` directory and its config, or none.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Discovery {
    NoRepository,
    Repository {
        git_dir: PathBuf,
        git_dir_stamp: FileStamp,
        config_stamp: Option<FileStamp>,
    },
}

type Resolve = dyn Fn(&Path) -> Result<Project, ProjectError> + Send + Sync;

/// Working directory → project, revalidated on every call with a few `stat`s.
pub struct ProjectLookup {
    remembered: Mutex<HashMap<PathBuf, (Discovery, Project)>>,
    resolve: Box<Resolve>,
}

impl Default for ProjectLookup {
    fn default() -> Self {
        ProjectLookup::with_resolver(project::resolve)
    }
}

impl ProjectLookup {
    /// A lookup answering through `resolve` when it has nothing valid remembered (tests count
    /// the calls).
    pub fn with_resolver(
        resolve: impl Fn(&Path) -> Result<Project, ProjectError> + Send + Sync + 'static,
    ) -> Self {
        ProjectLookup {
            remembered: Mutex::new(HashMap::new()),
            resolve: Box::new(resolve),
        }
    }

    /// The project `cwd` belongs to, as `project::resolve` would answer now.
    pub fn project_at(&self, cwd: &Path) -> Result<Project, ProjectError> {
        let Ok(canonical) = cwd.canonicalize() else {
            return (self.resolve)(cwd);
        };
        let Some(discovery) = discover(&canonical) else {
            return (self.resolve)(cwd);
        };
        let mut remembered = self
            .remembered
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((seen, project)) = remembered.get(&canonical) {
            if *seen == discovery {
                return Ok(project.clone());
            }
        }
        let project = (self.resolve)(&canonical)?;
        if remembered.len() >= REMEMBERED_DIRECTORIES {
            remembered.clear();
        }
        remembered.insert(canonical, (discovery, project.clone()));
        Ok(project)
    }
}

/// Walks up from `dir` as git's discovery does; `None` when the answer must not be remembered
/// (a linked worktree, or a `.git` that cannot be read).
fn discover(dir: &Path) -> Option<Discovery> {
    for ancestor in dir.ancestors() {
        let candidate = ancestor.join(".git");
        match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.is_dir() => {
                let config_stamp = std::fs::metadata(candidate.join("config"))
                    .ok()
                    .map(|m| stamp(&m));
                return Some(Discovery::Repository {
                    git_dir_stamp: stamp(&meta),
                    git_dir: candidate,
                    config_stamp,
                });
            }
            Ok(_) => return None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        }
    }
    Some(Discovery::NoRepository)
}

fn stamp(meta: &std::fs::Metadata) -> FileStamp {
    (meta.ino(), meta.len(), meta.mtime(), meta.mtime_nsec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .expect("git is required");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn counting() -> (ProjectLookup, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = calls.clone();
        let lookup = ProjectLookup::with_resolver(move |dir| {
            seen.fetch_add(1, Ordering::SeqCst);
            project::resolve(dir)
        });
        (lookup, calls)
    }

    #[test]
    fn a_repeated_directory_is_answered_without_asking_git_again() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("ledger");
        std::fs::create_dir_all(repo.join("src")).unwrap();
        git(&repo, &["init", "-q"]);
        let (lookup, calls) = counting();
        let first = lookup.project_at(&repo.join("src")).unwrap();
        let again = lookup.project_at(&repo.join("src")).unwrap();
        assert_eq!(first, again);
        assert_eq!(first, project::resolve(&repo.join("src")).unwrap());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_new_remote_changes_the_answer() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("ledger");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q"]);
        let (lookup, _) = counting();
        let before = lookup.project_at(&repo).unwrap();
        assert_eq!(before.remote, None);
        git(
            &repo,
            &["remote", "add", "origin", "git@github.com:acme/ledger.git"],
        );
        let after = lookup.project_at(&repo).unwrap();
        assert_eq!(after.remote.as_deref(), Some("github.com/acme/ledger"));
        assert_ne!(before.slug, after.slug);
    }

    #[test]
    fn a_repository_created_above_a_plain_directory_is_noticed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("outer/inner");
        std::fs::create_dir_all(&dir).unwrap();
        let (lookup, _) = counting();
        let plain = lookup.project_at(&dir).unwrap();
        assert_eq!(plain.root, dir.canonicalize().unwrap());
        git(&tmp.path().join("outer"), &["init", "-q"]);
        let inside = lookup.project_at(&dir).unwrap();
        assert_eq!(
            inside.root,
            tmp.path().join("outer").canonicalize().unwrap()
        );
    }

    #[test]
    fn a_linked_worktree_is_asked_every_time() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("ledger");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q"]);
        std::fs::write(repo.join("f"), "x").unwrap();
        git(&repo, &["add", "."]);
        git(
            &repo,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "init",
            ],
        );
        let wt = tmp.path().join("wt");
        git(&repo, &["worktree", "add", "-q", wt.to_str().unwrap()]);
        let (lookup, calls) = counting();
        let a = lookup.project_at(&wt).unwrap();
        let b = lookup.project_at(&wt).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.root, repo.canonicalize().unwrap());
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_missing_directory_is_the_resolvers_error() {
        let (lookup, _) = counting();
        let err = lookup
            .project_at(Path::new("/nonexistent/ambry-lookup"))
            .unwrap_err();
        assert!(matches!(err, ProjectError::NotADirectory { .. }), "{err:?}");
    }
}
