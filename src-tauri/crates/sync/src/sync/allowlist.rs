//! What travels (DESIGN §15): the allowlist of paths a sync tree may hold, and where each one
//! lives in the home.
//!
//! Owns: `Kind` (the person's anchor, a memory of the user scope or of a project identified by
//! its git remote, a scope's retrieval tests, a project's remote) and the one parser from a
//! tree path to a kind; anything it does not name never travels, in either direction.
//! Deliberately does not: read files or judge their contents (see `inspect` and `export`).

use std::path::PathBuf;

use ambry_store::memory::naming::validate_name;
use ambry_store::memory::CASES_FILE;
use ambry_store::project;

/// The tree path of a project's identity: its normalized git remote, one line. It is what
/// makes a slug the same on every machine, and how a machine that never opened the project
/// learns which repository the memories are for.
pub const REMOTE_FILE: &str = "remote";

/// A path the allowlist names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `USER.md`, the person's own preferences.
    UserAnchor,
    /// `projects/<slug>/remote`.
    ProjectRemote { slug: String },
    /// `memory/<name>.md` (project `None`) or `projects/<slug>/memory/<name>.md`.
    Memory {
        project: Option<String>,
        name: String,
    },
    /// `memory/tests.toml` or `projects/<slug>/memory/tests.toml`.
    Tests { project: Option<String> },
}

impl Kind {
    /// The kind of a tree path, or why it is not one that travels.
    pub fn of(path: &str) -> Result<Kind, String> {
        let parts: Vec<&str> = path.split('/').collect();
        let not_synced = || format!("`{path}` is not a file Ambry syncs");
        match parts.as_slice() {
            ["USER.md"] => Ok(Kind::UserAnchor),
            ["memory", file] => scope_file(None, file).ok_or_else(not_synced)?,
            ["projects", slug, REMOTE_FILE] => {
                check_slug(slug)?;
                Ok(Kind::ProjectRemote {
                    slug: slug.to_string(),
                })
            }
            ["projects", slug, "memory", file] => {
                check_slug(slug)?;
                scope_file(Some(slug), file).ok_or_else(not_synced)?
            }
            _ => Err(not_synced()),
        }
    }

    /// Its path in a sync tree.
    pub fn tree_path(&self) -> String {
        let scope_dir = |project: &Option<String>| match project {
            Some(slug) => format!("projects/{slug}/memory"),
            None => "memory".to_string(),
        };
        match self {
            Kind::UserAnchor => "USER.md".into(),
            Kind::ProjectRemote { slug } => format!("projects/{slug}/{REMOTE_FILE}"),
            Kind::Memory { project, name } => format!("{}/{name}.md", scope_dir(project)),
            Kind::Tests { project } => format!("{}/{CASES_FILE}", scope_dir(project)),
        }
    }

    /// The project slug it belongs to, if any.
    pub fn project(&self) -> Option<&str> {
        match self {
            Kind::UserAnchor => None,
            Kind::ProjectRemote { slug } => Some(slug),
            Kind::Memory { project, .. } | Kind::Tests { project } => project.as_deref(),
        }
    }
}

fn scope_file(project: Option<&str>, file: &str) -> Option<Result<Kind, String>> {
    let project = project.map(str::to_string);
    if file == CASES_FILE {
        return Some(Ok(Kind::Tests { project }));
    }
    let name = file.strip_suffix(".md")?;
    Some(
        validate_name(name)
            .map(|()| Kind::Memory {
                project,
                name: name.to_string(),
            })
            .map_err(|e| e.to_string()),
    )
}

/// A slug made from a git remote has the shape `<readable>-<8 hex>`; anything else (a path, a
/// `..`) is not one.
fn check_slug(slug: &str) -> Result<(), String> {
    let shaped = slug.len() <= 64
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && slug
            .rsplit_once('-')
            .is_some_and(|(readable, hash)| !readable.is_empty() && hash.len() == 8);
    if shaped {
        Ok(())
    } else {
        Err(format!(
            "`{}` is not a project slug",
            ambry_store::error::quoted(slug)
        ))
    }
}

/// Whether `slug` is the slug of the normalized git remote `remote` (so it is the same on
/// every machine, DESIGN §2); a path-keyed project never is.
pub fn slug_matches_remote(slug: &str, remote: &str) -> bool {
    !remote.is_empty() && project::identify(PathBuf::new(), Some(remote.to_string())).slug == slug
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_named_paths_travel() {
        assert_eq!(Kind::of("USER.md"), Ok(Kind::UserAnchor));
        assert!(matches!(
            Kind::of("memory/deploy.md"),
            Ok(Kind::Memory { project: None, .. })
        ));
        assert!(matches!(
            Kind::of("memory/tests.toml"),
            Ok(Kind::Tests { project: None })
        ));
        assert!(Kind::of("projects/ledger-1a2b3c4d/memory/x.md").is_ok());
        assert!(Kind::of("projects/ledger-1a2b3c4d/remote").is_ok());
        for refused in [
            "memory/MEMORY.md",
            "memory/x.vec",
            "memory/.archive/x.1.a.md",
            "config.toml",
            "index.sqlite",
            "ledger.sqlite",
            "sessions/a.jsonl",
            "models/m/model.onnx",
            "projects/../memory/x.md",
            "projects/ledger/memory/x.md",
            "projects/ledger-1a2b3c4d/project.toml",
            "memory/Bad Name.md",
            "memory/user.md",
        ] {
            assert!(Kind::of(refused).is_err(), "{refused} would travel");
        }
    }

    #[test]
    fn a_slug_is_checked_against_its_remote() {
        let slug = project::identify(PathBuf::new(), Some("github.com/acme/ledger".into())).slug;
        assert!(slug_matches_remote(&slug, "github.com/acme/ledger"));
        assert!(!slug_matches_remote(&slug, "github.com/acme/other"));
    }
}
