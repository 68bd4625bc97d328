//! Project identity (DESIGN §2): which project a working directory belongs to, and its slug.
//!
//! Owns: finding the repository root of a cwd (git top level; a linked worktree resolves to its
//! main repository), normalizing the `origin` remote, the readable collision-free slug, and
//! `projects/<slug>/project.toml` (roots and remote, for listing).
//! Deliberately does not: read or write memories.
//!
//! A directory outside any git repository is still a project, keyed by its canonical path:
//! an agent working in a plain folder gets project memory that stays with that folder.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::ErrorCode;
use crate::home::AmbryHome;

/// A project as Ambry knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    /// `<readable>-<8 hex>`, e.g. `ledger-1a2b3c4d`.
    pub slug: String,
    /// The repository root (canonical absolute path).
    pub root: PathBuf,
    /// The normalized `origin` remote, e.g. `github.com/acme/ledger`, when there is one.
    pub remote: Option<String>,
}

/// A project recorded under `projects/`, for listing in the app and `doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownProject {
    pub slug: String,
    #[serde(default)]
    pub roots: Vec<PathBuf>,
    #[serde(default)]
    pub remote: Option<String>,
}

impl KnownProject {
    /// A `Project` handle for this record (its first root, if any, is the root).
    pub fn to_project(&self) -> Project {
        Project {
            slug: self.slug.clone(),
            root: self.roots.first().cloned().unwrap_or_default(),
            remote: self.remote.clone(),
        }
    }

    /// The name to show: the remote's or root's last component.
    pub fn display_name(&self) -> String {
        self.remote
            .as_deref()
            .and_then(|r| r.rsplit('/').next())
            .map(str::to_string)
            .or_else(|| {
                self.roots
                    .first()
                    .and_then(|r| r.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| self.slug.clone())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("{path} does not exist or is not a directory")]
    NotADirectory { path: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not valid project.toml: {message}")]
    BadRecord { path: String, message: String },
    #[error("no project `{slug}` is known here; add it by picking its folder")]
    Unknown { slug: String },
}

impl ErrorCode for ProjectError {
    fn code(&self) -> crate::error::Code {
        match self {
            ProjectError::NotADirectory { .. } => crate::error::Code::NotADirectory,
            ProjectError::Io { .. } => crate::error::Code::Io,
            ProjectError::BadRecord { .. } => crate::error::Code::BadProjectRecord,
            ProjectError::Unknown { .. } => crate::error::Code::UnknownProject,
        }
    }
}

/// The project `cwd` belongs to: the git repository around it, else the directory itself.
pub fn resolve(cwd: &Path) -> Result<Project, ProjectError> {
    let canonical = cwd
        .canonicalize()
        .map_err(|_| ProjectError::NotADirectory {
            path: cwd.display().to_string(),
        })?;
    if !canonical.is_dir() {
        return Err(ProjectError::NotADirectory {
            path: cwd.display().to_string(),
        });
    }
    let root = git_root(&canonical).unwrap_or(canonical);
    let remote =
        git(&root, &["config", "--get", "remote.origin.url"]).map(|url| normalize_remote(&url));
    Ok(identify(root, remote))
}

/// The slug and project for a root and its (normalized) remote.
pub fn identify(root: PathBuf, remote: Option<String>) -> Project {
    let (readable, keyed_by) = match &remote {
        Some(remote) => (
            remote.rsplit('/').next().unwrap_or(remote).to_string(),
            remote.clone(),
        ),
        None => (
            root.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            root.to_string_lossy().into_owned(),
        ),
    };
    let digest = Sha256::digest(keyed_by.as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    Project {
        slug: format!("{}-{hash}", readable_part(&readable)),
        root,
        remote,
    }
}

/// `https://github.com/Acme/Ledger.git` and `git@github.com:acme/ledger.git` both give
/// `github.com/acme/ledger`: scheme, user, port, `.git` and trailing slashes dropped, lowercased.
pub fn normalize_remote(url: &str) -> String {
    let url = url.trim().to_lowercase();
    let (without_scheme, had_scheme) = match url.split_once("://") {
        Some((_, rest)) => (rest.to_string(), true),
        None => (url.clone(), false),
    };
    let (authority, path) = if had_scheme {
        match without_scheme.split_once('/') {
            Some((a, p)) => (a.to_string(), p.to_string()),
            None => (without_scheme.clone(), String::new()),
        }
    } else if let Some((a, p)) = without_scheme
        .split_once(':')
        .filter(|(a, _)| !a.contains('/'))
    {
        // scp-like `user@host:path`
        (a.to_string(), p.to_string())
    } else {
        (String::new(), without_scheme.clone())
    };
    let host = authority.rsplit('@').next().unwrap_or("");
    let host = match host.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => host,
    };
    let mut path = path.trim_matches('/').to_string();
    while let Some(stripped) = path.strip_suffix(".git").or_else(|| path.strip_suffix('/')) {
        path = stripped.to_string();
    }
    let path = path.trim_matches('/');
    if host.is_empty() {
        path.to_string()
    } else if path.is_empty() {
        host.to_string()
    } else {
        format!("{host}/{path}")
    }
}

fn readable_part(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out: String = out.trim_matches('-').chars().take(40).collect();
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "project".to_string()
    } else {
        out
    }
}

/// The git top level of `dir`; a linked worktree resolves to its main repository.
fn git_root(dir: &Path) -> Option<PathBuf> {
    let top = PathBuf::from(git(dir, &["rev-parse", "--show-toplevel"])?);
    let common = git(
        dir,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .map(PathBuf::from);
    if let Some(common) = common {
        if common.file_name().is_some_and(|n| n == ".git") {
            if let Some(main_root) = common.parent() {
                return main_root.canonicalize().ok().or(Some(top));
            }
        }
    }
    top.canonicalize().ok().or(Some(top))
}

/// Runs git; `None` when git is missing, fails, or prints nothing.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Records the project under `projects/<slug>/project.toml`, adding its root if new.
pub fn register(home: &AmbryHome, project: &Project) -> Result<(), ProjectError> {
    let dir = home.project_dir(&project.slug);
    let path = dir.join("project.toml");
    let mut record = read_record(&path)?.unwrap_or(KnownProject {
        slug: project.slug.clone(),
        roots: vec![],
        remote: None,
    });
    let before = record.clone();
    if !project.root.as_os_str().is_empty() && !record.roots.contains(&project.root) {
        record.roots.push(project.root.clone());
    }
    if record.remote.is_none() {
        record.remote = project.remote.clone();
    }
    if path.exists() && record == before {
        return Ok(());
    }
    crate::storage::create_private_dir_all(&dir).map_err(|source| ProjectError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let text = toml::to_string(&record).map_err(|e| ProjectError::BadRecord {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    crate::storage::write_atomic(&dir, "project.toml", text.as_bytes()).map_err(|source| {
        ProjectError::Io {
            path: path.display().to_string(),
            source,
        }
    })
}

/// Every project under `projects/`: those with a `project.toml` and those that only have memories.
pub fn known_projects(home: &AmbryHome) -> Result<Vec<KnownProject>, ProjectError> {
    let dir = home.projects_dir();
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ProjectError::Io {
                path: dir.display().to_string(),
                source,
            })
        }
    };
    let mut seen = BTreeSet::new();
    let mut projects = Vec::new();
    for entry in entries.flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let slug = entry.file_name().to_string_lossy().into_owned();
        let record = match read_record(&entry.path().join("project.toml")) {
            Ok(Some(mut record)) => {
                record.slug = slug.clone();
                record
            }
            Ok(None) if entry.path().join("memory").is_dir() => KnownProject {
                slug: slug.clone(),
                roots: vec![],
                remote: None,
            },
            Ok(None) => continue,
            // A damaged record must not hide the project's memories.
            Err(_) => KnownProject {
                slug: slug.clone(),
                roots: vec![],
                remote: None,
            },
        };
        if seen.insert(slug) {
            projects.push(record);
        }
    }
    projects.sort_by(|a, b| {
        a.display_name()
            .cmp(&b.display_name())
            .then_with(|| a.slug.cmp(&b.slug))
    });
    Ok(projects)
}

/// The known project with this slug; anything else (including a slug that is not a plain
/// directory name under `projects/`) is `Unknown`, so a caller can never reach outside it.
pub fn find_known(home: &AmbryHome, slug: &str) -> Result<KnownProject, ProjectError> {
    known_projects(home)?
        .into_iter()
        .find(|p| p.slug == slug)
        .ok_or_else(|| ProjectError::Unknown {
            slug: slug.to_string(),
        })
}

/// A project record is a few lines; this bounds a device or an endless file put in its place.
const RECORD_MAX: u64 = 64 * 1024;

fn read_record(path: &Path) -> Result<Option<KnownProject>, ProjectError> {
    use crate::memory::bounded_read::{read_regular, ReadRefusal};
    let text = match read_regular(path, RECORD_MAX) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        Err(ReadRefusal::Missing) => Err(std::io::ErrorKind::NotFound.into()),
        Err(ReadRefusal::Io(e)) => Err(e),
        Err(refusal) => Err(std::io::Error::other(refusal.to_string())),
    };
    match text {
        Ok(text) => toml::from_str(&text)
            .map(Some)
            .map_err(|e| ProjectError::BadRecord {
                path: path.display().to_string(),
                message: e.message().to_string(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ProjectError::Io {
            path: path.display().to_string(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_record_is_read_bounded_and_regular_only() {
        let tmp = tempfile::tempdir().unwrap();
        let zero = tmp.path().join("project.toml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(
            read_record(&zero).is_err(),
            "a device is refused, not read whole"
        );
        let big = tmp.path().join("big.toml");
        fs::write(&big, "#".repeat(RECORD_MAX as usize + 1)).unwrap();
        assert!(read_record(&big).is_err());
    }

    #[test]
    fn remotes_of_one_repository_normalize_alike() {
        let forms = [
            "https://github.com/Acme/Ledger.git",
            "git@github.com:acme/ledger.git",
            "ssh://git@github.com:22/acme/ledger.git",
            "https://user:tok@github.com/acme/ledger/",
            "git://github.com/acme/ledger",
            "  HTTPS://GITHUB.COM/ACME/LEDGER.GIT\n",
        ];
        for f in forms {
            assert_eq!(normalize_remote(f), "github.com/acme/ledger", "{f}");
        }
        assert_eq!(normalize_remote("/srv/git/ledger.git"), "srv/git/ledger");
    }

    #[test]
    fn clones_share_a_slug_and_different_repos_do_not() {
        let a = identify(
            "/home/a/ledger".into(),
            Some(normalize_remote("https://github.com/Acme/Ledger.git")),
        );
        let b = identify(
            "/work/other/place".into(),
            Some(normalize_remote("git@github.com:acme/ledger.git")),
        );
        assert_eq!(a.slug, b.slug);
        assert!(a.slug.starts_with("ledger-"));
        assert_eq!(a.slug.len(), "ledger-".len() + 8);
        let fork = identify(
            "/home/a/ledger".into(),
            Some("github.com/other/ledger".into()),
        );
        assert_ne!(a.slug, fork.slug, "same basename, different remote");
        let no_remote_1 = identify("/x/ledger".into(), None);
        let no_remote_2 = identify("/y/ledger".into(), None);
        assert_ne!(no_remote_1.slug, no_remote_2.slug);
        assert!(no_remote_1.slug.starts_with("ledger-"));
    }

    #[test]
    fn readable_part_is_sanitized() {
        assert_eq!(readable_part("My Repo.rs!!"), "my-repo-rs");
        assert_eq!(readable_part("___"), "project");
        assert_eq!(readable_part(&"x".repeat(80)).len(), 40);
    }

    fn git_available() -> bool {
        Command::new("git").arg("--version").output().is_ok()
    }

    fn run_git(dir: &Path, args: &[&str]) {
        let st = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
    }

    #[test]
    fn resolves_repo_root_subdirs_and_worktrees() {
        assert!(
            git_available(),
            "git is required for project identity tests"
        );
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("Ledger");
        fs::create_dir_all(repo.join("src/deep")).unwrap();
        run_git(&repo, &["init", "-q"]);
        run_git(
            &repo,
            &["remote", "add", "origin", "git@github.com:Acme/Ledger.git"],
        );
        fs::write(repo.join("f"), "x").unwrap();
        run_git(&repo, &["add", "."]);
        run_git(&repo, &["commit", "-qm", "init"]);
        let from_root = resolve(&repo).unwrap();
        let from_sub = resolve(&repo.join("src/deep")).unwrap();
        assert_eq!(from_root, from_sub);
        assert_eq!(from_root.root, repo.canonicalize().unwrap());
        assert_eq!(from_root.remote.as_deref(), Some("github.com/acme/ledger"));
        let wt = tmp.path().join("wt");
        run_git(&repo, &["worktree", "add", "-q", wt.to_str().unwrap()]);
        let from_wt = resolve(&wt).unwrap();
        assert_eq!(from_wt.slug, from_root.slug);
        assert_eq!(from_wt.root, from_root.root);
    }

    #[test]
    fn plain_directory_is_keyed_by_path() {
        let tmp = tempfile::tempdir().unwrap();
        let p = resolve(tmp.path()).unwrap();
        assert_eq!(p.root, tmp.path().canonicalize().unwrap());
        assert_eq!(p.remote, None);
        assert!(resolve(&tmp.path().join("missing")).is_err());
    }

    #[test]
    fn register_records_roots_once_and_lists() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path());
        let p = identify("/a/ledger".into(), Some("github.com/acme/ledger".into()));
        register(&home, &p).unwrap();
        register(&home, &p).unwrap();
        register(
            &home,
            &Project {
                root: "/b/ledger".into(),
                ..p.clone()
            },
        )
        .unwrap();
        fs::create_dir_all(home.project_memory_dir("orphan-12345678")).unwrap();
        let known = known_projects(&home).unwrap();
        assert_eq!(known.len(), 2);
        let ledger = known.iter().find(|k| k.slug == p.slug).unwrap();
        assert_eq!(
            ledger.roots,
            vec![PathBuf::from("/a/ledger"), PathBuf::from("/b/ledger")]
        );
        assert_eq!(ledger.display_name(), "ledger");
        assert!(known.iter().any(|k| k.slug == "orphan-12345678"));
    }

    #[test]
    fn find_known_accepts_only_listed_slugs() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path());
        let project = identify(tmp.path().join("ledger"), None);
        register(&home, &project).unwrap();
        assert_eq!(
            find_known(&home, &project.slug).unwrap().roots,
            vec![project.root.clone()]
        );
        for bad in ["nope-00000000", "..", "../..", "", "a/b"] {
            assert_eq!(
                find_known(&home, bad).unwrap_err().code(),
                "unknown_project",
                "{bad}"
            );
        }
    }
}
