//! Agents' own instruction files (DESIGN §10, §13): `~/.claude/CLAUDE.md`, a repository's
//! `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md` and `AGENTS.md`.
//!
//! Owns: which files exist for a project and which agent loads each by itself (so the compose
//! preview can show the whole starting context, and Engram never injects them twice), reading
//! them, and saving an edit: secrets refused with the store's filter, the prior text archived
//! under `ENGRAM_HOME/instructions-archive/`, the new text written atomically.
//! Deliberately does not: parse or rank their contents, or put them in the memory block.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::agents::{Agent, AgentEnv};
use crate::error::ErrorCode;
use crate::memory::secrets::find_secret;
use crate::EngramHome;

/// One instruction file by role; the UI names files by kind, never by path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstructionKind {
    /// `<claude dir>/CLAUDE.md`: the person's instructions for every project.
    UserClaude,
    /// `<repo>/CLAUDE.md`
    ProjectClaude,
    /// `<repo>/.claude/CLAUDE.md`
    ProjectDotClaude,
    /// `<repo>/CLAUDE.local.md` (personal, usually git-ignored)
    ProjectLocalClaude,
    /// `<repo>/AGENTS.md` (Codex and others)
    ProjectAgents,
}

impl InstructionKind {
    pub const ALL: [InstructionKind; 5] = [
        InstructionKind::UserClaude,
        InstructionKind::ProjectClaude,
        InstructionKind::ProjectDotClaude,
        InstructionKind::ProjectLocalClaude,
        InstructionKind::ProjectAgents,
    ];

    /// The agents that load this file on their own at the start of a session.
    pub fn loaded_by(self) -> &'static [Agent] {
        match self {
            InstructionKind::ProjectAgents => &[Agent::Codex],
            _ => &[Agent::Claude],
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            InstructionKind::UserClaude => "user-claude",
            InstructionKind::ProjectClaude => "project-claude",
            InstructionKind::ProjectDotClaude => "project-dot-claude",
            InstructionKind::ProjectLocalClaude => "project-local-claude",
            InstructionKind::ProjectAgents => "project-agents",
        }
    }

    /// The file's path; project kinds need the repository root.
    pub fn path(self, env: &AgentEnv, repo: Option<&Path>) -> Option<PathBuf> {
        match self {
            InstructionKind::UserClaude => Some(env.claude_dir().join("CLAUDE.md")),
            InstructionKind::ProjectClaude => repo.map(|r| r.join("CLAUDE.md")),
            InstructionKind::ProjectDotClaude => repo.map(|r| r.join(".claude/CLAUDE.md")),
            InstructionKind::ProjectLocalClaude => repo.map(|r| r.join("CLAUDE.local.md")),
            InstructionKind::ProjectAgents => repo.map(|r| r.join("AGENTS.md")),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct InstructionFile {
    pub kind: InstructionKind,
    pub path: PathBuf,
    pub exists: bool,
    pub bytes: u64,
    pub loaded_by: Vec<Agent>,
}

#[derive(Debug, thiserror::Error)]
pub enum InstructionError {
    #[error("{kind:?} belongs to a project; pick a project first")]
    NoProject { kind: InstructionKind },
    #[error("not saved: the text looks like it contains a secret ({kind}: {excerpt}); remove it and save again")]
    SecretDetected { kind: &'static str, excerpt: String },
    #[error("cannot {action} {path}: {source}")]
    Io { action: &'static str, path: String, source: std::io::Error },
}

impl ErrorCode for InstructionError {
    fn code(&self) -> &'static str {
        match self {
            InstructionError::NoProject { .. } => "no_project",
            InstructionError::SecretDetected { .. } => "secret_detected",
            InstructionError::Io { .. } => "io",
        }
    }
}

fn io(action: &'static str, path: &Path, source: std::io::Error) -> InstructionError {
    InstructionError::Io { action, path: path.display().to_string(), source }
}

/// Every instruction file for the project (user-wide ones too), present or not.
pub fn list(env: &AgentEnv, repo: Option<&Path>) -> Vec<InstructionFile> {
    InstructionKind::ALL
        .into_iter()
        .filter_map(|kind| {
            let path = kind.path(env, repo)?;
            let meta = fs::metadata(&path).ok().filter(|m| m.is_file());
            Some(InstructionFile { kind, exists: meta.is_some(), bytes: meta.map_or(0, |m| m.len()), loaded_by: kind.loaded_by().to_vec(), path })
        })
        .collect()
}

/// The file's text; `None` when it does not exist.
pub fn read(env: &AgentEnv, repo: Option<&Path>, kind: InstructionKind) -> Result<Option<String>, InstructionError> {
    let path = kind.path(env, repo).ok_or(InstructionError::NoProject { kind })?;
    match fs::read_to_string(&path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io("read", &path, e)),
    }
}

/// Saves `text`: refused if it holds a secret; the prior text (if any) archived first under
/// `instructions-archive/<kind>/`; returns the archived copy's path.
pub fn save(
    home: &EngramHome,
    env: &AgentEnv,
    repo: Option<&Path>,
    kind: InstructionKind,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Option<PathBuf>, InstructionError> {
    let path = kind.path(env, repo).ok_or(InstructionError::NoProject { kind })?;
    if let Some(found) = find_secret(text) {
        return Err(InstructionError::SecretDetected { kind: found.kind, excerpt: found.excerpt });
    }
    let prior = read(env, repo, kind)?;
    if prior.as_deref() == Some(text) {
        return Ok(None);
    }
    let archived = match prior {
        Some(prior) => {
            let dir = home.root().join("instructions-archive").join(kind.as_str());
            fs::create_dir_all(&dir).map_err(|e| io("create", &dir, e))?;
            let name = format!("{}.{}.md", now.format("%Y%m%dT%H%M%S%.9fZ"), rand::random::<u32>());
            crate::storage::write_atomic(&dir, &name, prior.as_bytes()).map_err(|e| io("archive", &dir, e))?;
            Some(dir.join(name))
        }
        None => None,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    crate::storage::write_atomic(dir, &file_name, text.as_bytes()).map_err(|e| io("write", &path, e))?;
    Ok(archived)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_saves_archives_and_refuses_secrets() {
        let tmp = tempfile::tempdir().unwrap();
        let env = AgentEnv::new(tmp.path().join("u"), None, None);
        let repo = tmp.path().join("repo");
        fs::create_dir_all(&repo).unwrap();
        fs::write(repo.join("AGENTS.md"), "Run `make test`.\n").unwrap();
        let home = EngramHome::new(tmp.path().join("engram"));
        let now: DateTime<Utc> = "2026-11-23T10:00:00Z".parse().unwrap();

        let files = list(&env, Some(&repo));
        assert_eq!(files.len(), 5);
        let agents = files.iter().find(|f| f.kind == InstructionKind::ProjectAgents).unwrap();
        assert!(agents.exists && agents.loaded_by == [Agent::Codex]);
        assert_eq!(list(&env, None).len(), 1, "without a project only the user file");

        let archived = save(&home, &env, Some(&repo), InstructionKind::ProjectAgents, "Run `make check`.\n", now).unwrap().unwrap();
        assert_eq!(fs::read_to_string(&archived).unwrap(), "Run `make test`.\n");
        assert_eq!(fs::read_to_string(repo.join("AGENTS.md")).unwrap(), "Run `make check`.\n");
        assert!(save(&home, &env, Some(&repo), InstructionKind::ProjectAgents, "Run `make check`.\n", now).unwrap().is_none());

        let created = save(&home, &env, None, InstructionKind::UserClaude, "Be brief.\n", now).unwrap();
        assert!(created.is_none());
        assert_eq!(fs::read_to_string(tmp.path().join("u/.claude/CLAUDE.md")).unwrap(), "Be brief.\n");

        let secret = "deploy key: AKIAZ3MXQ7V2LPRT4K9B\n";
        let err = save(&home, &env, Some(&repo), InstructionKind::ProjectAgents, secret, now).unwrap_err();
        assert_eq!(err.code(), "secret_detected");
        assert_eq!(fs::read_to_string(repo.join("AGENTS.md")).unwrap(), "Run `make check`.\n");
        assert!(matches!(save(&home, &env, None, InstructionKind::ProjectClaude, "x", now), Err(InstructionError::NoProject { .. })));
    }
}
