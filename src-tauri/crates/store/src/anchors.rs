//! Trust anchors (DESIGN §2): `USER.md` (the person's own preferences) and a repository's
//! `.ambry/AMBRY.md` (the team's project context, shared through git).
//!
//! Owns: where anchors live, reading them (regular files only, at most `ANCHOR_MAX` bytes, never
//! through a link that leaves the anchor's repository or home — git stores links, so a cloned
//! repository could otherwise point its anchor at `/proc/self/environ`), the secret check before
//! an anchor reaches an agent, creating skeletons that never overwrite, and saving the person's
//! own edits from the app (atomic, refusing secrets like memories do).
//! Deliberately does not: let agents write anchors; only `init`, the app and the person's editor do.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::ErrorCode;
use crate::home::AmbryHome;
use crate::memory::bounded_read::{read_regular_within, ReadRefusal};
use crate::project::Project;
use crate::storage::write_atomic;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AnchorKind {
    User,
    Project,
}

#[derive(Debug, Clone, Serialize)]
pub struct InitOutcome {
    pub anchor: AnchorKind,
    pub path: PathBuf,
    /// False when the file already existed and was left untouched.
    pub created: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum AnchorError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("refused: the text looks like a secret ({kind}: `{excerpt}`); agents read this file every turn, so store a pointer to where the secret lives instead")]
    SecretDetected { kind: &'static str, excerpt: String },
    /// Not a regular file, too large, or a link out of where the anchor belongs.
    #[error("{path} {reason}")]
    Unreadable { path: String, reason: String },
    /// The anchor on disk holds what looks like a secret: it is not given to agents.
    #[error("{path} holds what looks like a secret ({kind}: `{excerpt}`), so agents are not given it; remove the secret and store a pointer to where it lives")]
    HoldsSecret {
        path: String,
        kind: &'static str,
        excerpt: String,
    },
}

impl ErrorCode for AnchorError {
    fn code(&self) -> crate::error::Code {
        match self {
            AnchorError::Io { .. } => crate::error::Code::Io,
            AnchorError::SecretDetected { .. } | AnchorError::HoldsSecret { .. } => {
                crate::error::Code::SecretDetected
            }
            AnchorError::Unreadable { .. } => crate::error::Code::Unreadable,
        }
    }
}

pub fn user_anchor_path(home: &AmbryHome) -> PathBuf {
    home.user_anchor()
}

pub fn project_anchor_path(project: &Project) -> PathBuf {
    project.root.join(".ambry").join("AMBRY.md")
}

/// Most bytes an anchor may hold. Compose gives an anchor at most the 8,000-byte hook limit
/// anyway; 64 KiB leaves room for a long team document and refuses a runaway file.
pub const ANCHOR_MAX: u64 = 64 * 1024;

/// The directory an anchor must resolve inside: the repository for `<repo>/.ambry/AMBRY.md`,
/// the anchor's own directory (the home) for `USER.md`.
pub fn anchor_root(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    match (dir.file_name(), dir.parent()) {
        (Some(name), Some(repo)) if name == ".ambry" => repo.to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// The anchor's text, `None` if it does not exist. Read as the person's own view (the app):
/// bounded and link-safe, but a secret in it is shown to its owner so they can remove it.
pub fn read(path: &Path) -> Result<Option<String>, AnchorError> {
    let unreadable = |reason: String| AnchorError::Unreadable {
        path: path.display().to_string(),
        reason,
    };
    match read_regular_within(path, &anchor_root(path), ANCHOR_MAX) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| unreadable("is not UTF-8 text".into())),
        Err(ReadRefusal::Missing) => Ok(None),
        Err(ReadRefusal::Io(source)) => Err(AnchorError::Io {
            path: path.display().to_string(),
            source,
        }),
        Err(other) => Err(unreadable(other.to_string())),
    }
}

/// The anchor's text for an agent's context (compose, MCP): as [`read`], and refused when it
/// holds what looks like a secret, since agents get it every turn.
pub fn read_for_agent(path: &Path) -> Result<Option<String>, AnchorError> {
    let text = read(path)?;
    if let Some(found) = text
        .as_deref()
        .and_then(crate::memory::secrets::find_secret)
    {
        return Err(AnchorError::HoldsSecret {
            path: path.display().to_string(),
            kind: found.kind,
            excerpt: found.excerpt,
        });
    }
    Ok(text)
}

const USER_SKELETON: &str = "# User preferences\n\n\
<!-- Your own standing instructions for every coding agent. Agents read this file in full every\n\
     turn and never write it. Keep it short and specific. -->\n\n\
## How I work\n\n- \n\n## Style\n\n- \n";

const PROJECT_SKELETON: &str = "# Project context\n\n\
<!-- What every agent should know about this repository. Shared with the team through git;\n\
     agents may only propose changes through Ambry's approval path. -->\n\n\
## What this is\n\n\n## Conventions\n\n- \n\n## Commands\n\n- \n";

/// True for an anchor still exactly as `init` wrote it: nothing a person said yet.
pub fn is_untouched_skeleton(text: &str) -> bool {
    text == USER_SKELETON || text == PROJECT_SKELETON
}

/// Creates the anchor skeleton unless the file exists (never overwrites).
pub fn init(kind: AnchorKind, path: &Path) -> Result<InitOutcome, AnchorError> {
    if path.exists() {
        return Ok(InitOutcome {
            anchor: kind,
            path: path.to_path_buf(),
            created: false,
        });
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let io = |source| AnchorError::Io {
        path: path.display().to_string(),
        source,
    };
    fs::create_dir_all(dir).map_err(io)?;
    let text = match kind {
        AnchorKind::User => USER_SKELETON,
        AnchorKind::Project => PROJECT_SKELETON,
    };
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("AMBRY.md");
    write_atomic(dir, file_name, text.as_bytes()).map_err(io)?;
    Ok(InitOutcome {
        anchor: kind,
        path: path.to_path_buf(),
        created: true,
    })
}

/// Replaces the anchor's text (creating its directory if needed), refusing secrets.
pub fn save(path: &Path, text: &str) -> Result<(), AnchorError> {
    if let Some(found) = crate::memory::secrets::find_secret(text) {
        return Err(AnchorError::SecretDetected {
            kind: found.kind,
            excerpt: found.excerpt,
        });
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let io = |source| AnchorError::Io {
        path: path.display().to_string(),
        source,
    };
    fs::create_dir_all(dir).map_err(io)?;
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("AMBRY.md");
    write_atomic(dir, file_name, text.as_bytes()).map_err(io)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_creates_once_and_never_overwrites() {
        let tmp = tempfile::tempdir().unwrap();
        let home = AmbryHome::new(tmp.path().join("h"));
        let path = user_anchor_path(&home);
        assert!(read(&path).unwrap().is_none());
        assert!(init(AnchorKind::User, &path).unwrap().created);
        fs::write(&path, "mine").unwrap();
        assert!(!init(AnchorKind::User, &path).unwrap().created);
        assert_eq!(read(&path).unwrap().as_deref(), Some("mine"));
        let project = Project {
            slug: "x-00000000".into(),
            root: tmp.path().join("repo"),
            remote: None,
        };
        let p = project_anchor_path(&project);
        assert!(init(AnchorKind::Project, &p).unwrap().created);
        let text = read(&p).unwrap().unwrap();
        assert!(text.starts_with("# Project context"));
        assert!(is_untouched_skeleton(&text));
        assert!(!is_untouched_skeleton(&format!("{text}- run make\n")));
    }

    #[test]
    fn save_replaces_text_and_refuses_secrets_without_touching_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("repo/.ambry/AMBRY.md");
        save(&path, "# Project context\n\nUse make.\n").unwrap();
        assert_eq!(
            read(&path).unwrap().as_deref(),
            Some("# Project context\n\nUse make.\n")
        );
        let err = save(&path, "deploy with key id AKIAZ3MXQ7V2LPRT4K9B in prod\n").unwrap_err();
        assert_eq!(err.code(), "secret_detected");
        assert_eq!(
            read(&path).unwrap().as_deref(),
            Some("# Project context\n\nUse make.\n")
        );
    }

    #[test]
    fn an_anchor_is_bounded_link_safe_and_kept_from_agents_when_it_holds_a_secret() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let path = repo.join(".ambry/AMBRY.md");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", &path).unwrap();
        assert_eq!(read(&path).unwrap_err().code(), "unreadable");
        assert_eq!(read_for_agent(&path).unwrap_err().code(), "unreadable");
        fs::remove_file(&path).unwrap();
        fs::write(&path, vec![b'a'; ANCHOR_MAX as usize + 1]).unwrap();
        assert!(read(&path).unwrap_err().to_string().contains("limit"));
        fs::write(
            &path,
            "deploy: GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
        )
        .unwrap();
        assert!(read(&path).unwrap().is_some(), "the person still sees it");
        let err = read_for_agent(&path).unwrap_err();
        assert_eq!(err.code(), "secret_detected");
        assert!(!err.to_string().contains("ghp_abcdefghijklmnopqrstuvwxyz"));
        assert_eq!(anchor_root(&path), repo);
        assert_eq!(
            anchor_root(&tmp.path().join("h/USER.md")),
            tmp.path().join("h")
        );
    }
}
