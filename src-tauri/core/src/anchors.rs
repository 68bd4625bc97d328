//! Trust anchors (DESIGN §2): `USER.md` (the person's own preferences) and a repository's
//! `.ambry/AMBRY.md` (the team's project context, shared through git).
//!
//! Owns: where anchors live, reading them, creating skeletons that never overwrite, and saving
//! the person's own edits from the app (atomic, refusing secrets like memories do).
//! Deliberately does not: let agents write anchors; only `init`, the app and the person's editor do.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::ErrorCode;
use crate::project::Project;
use crate::storage::write_atomic;
use crate::AmbryHome;

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
}

impl ErrorCode for AnchorError {
    fn code(&self) -> &'static str {
        match self {
            AnchorError::Io { .. } => "io",
            AnchorError::SecretDetected { .. } => "secret_detected",
        }
    }
}

pub fn user_anchor_path(home: &AmbryHome) -> PathBuf {
    home.user_anchor()
}

pub fn project_anchor_path(project: &Project) -> PathBuf {
    project.root.join(".ambry").join("AMBRY.md")
}

/// The anchor's text, `None` if it does not exist.
pub fn read(path: &Path) -> Result<Option<String>, AnchorError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(AnchorError::Io {
            path: path.display().to_string(),
            source,
        }),
    }
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
}
