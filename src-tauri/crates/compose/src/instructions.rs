//! Agents' own instruction files (DESIGN §10, §13): `~/.claude/CLAUDE.md`, a repository's
//! `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md` and `AGENTS.md`.
//!
//! Owns: which files exist for a project and which agent loads each by itself (so the compose
//! preview can show the whole starting context, and Ambry never injects them twice), reading
//! them (bounded), and saving a person's edit: secrets refused with the store's filter, an edit
//! made over a file that changed on disk since it was read refused, the prior text archived
//! under `AMBRY_HOME/instructions-archive/<user | project slug>/<kind>/`, the new text written
//! atomically. A file that is a symbolic link (`CLAUDE.md → AGENTS.md` is common) is written
//! at its target, so the link survives.
//! Deliberately does not: parse or rank their contents, put them in the memory block, or let an
//! agent write them (only the person, through the app or their editor).

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::agents::{Agent, AgentEnv};
use ambry_store::error::ErrorCode;
use ambry_store::home::AmbryHome;
use ambry_store::memory::bounded_read::{read_regular, read_regular_within, ReadRefusal};
use ambry_store::memory::secrets::find_secret;

/// The largest instruction file the app reads and edits; a bigger one opens in the editor.
pub const MAX_INSTRUCTION_BYTES: u64 = 1024 * 1024;

/// One instruction file by role; the UI names files by kind, never by path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum InstructionKind {
    /// `<claude dir>/CLAUDE.md`: the person's instructions for every project.
    UserClaude,
    /// `<codex home>/AGENTS.md` (`CODEX_HOME`, else `~/.codex`): the person's instructions
    /// Codex loads in every project.
    UserAgents,
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
    pub const ALL: [InstructionKind; 6] = [
        InstructionKind::UserClaude,
        InstructionKind::UserAgents,
        InstructionKind::ProjectClaude,
        InstructionKind::ProjectDotClaude,
        InstructionKind::ProjectLocalClaude,
        InstructionKind::ProjectAgents,
    ];

    /// The agents that load this file on their own at the start of a session.
    pub fn loaded_by(self) -> &'static [Agent] {
        match self {
            InstructionKind::ProjectAgents | InstructionKind::UserAgents => &[Agent::Codex],
            _ => &[Agent::Claude],
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            InstructionKind::UserClaude => "user-claude",
            InstructionKind::UserAgents => "user-agents",
            InstructionKind::ProjectClaude => "project-claude",
            InstructionKind::ProjectDotClaude => "project-dot-claude",
            InstructionKind::ProjectLocalClaude => "project-local-claude",
            InstructionKind::ProjectAgents => "project-agents",
        }
    }

    /// True for the files that belong to one repository (all but the user-wide `CLAUDE.md`
    /// and `AGENTS.md`).
    pub fn in_project(self) -> bool {
        !matches!(
            self,
            InstructionKind::UserClaude | InstructionKind::UserAgents
        )
    }

    /// The file's path; project kinds need the repository root.
    pub fn path(self, env: &AgentEnv, repo: Option<&Path>) -> Option<PathBuf> {
        match self {
            InstructionKind::UserClaude => Some(env.claude_dir().join("CLAUDE.md")),
            InstructionKind::UserAgents => Some(env.codex_dir().join("AGENTS.md")),
            InstructionKind::ProjectClaude => repo.map(|r| r.join("CLAUDE.md")),
            InstructionKind::ProjectDotClaude => repo.map(|r| r.join(".claude/CLAUDE.md")),
            InstructionKind::ProjectLocalClaude => repo.map(|r| r.join("CLAUDE.local.md")),
            InstructionKind::ProjectAgents => repo.map(|r| r.join("AGENTS.md")),
        }
    }
}

/// Where one scope's instruction files are: the agents' locations and, for a project, its slug
/// and repository root.
#[derive(Debug, Clone, Copy)]
pub struct InstructionScope<'a> {
    pub env: &'a AgentEnv,
    pub project: Option<(&'a str, &'a Path)>,
}

impl InstructionScope<'_> {
    fn repo(&self) -> Option<&Path> {
        self.project.map(|(_, root)| root)
    }

    /// The directory `kind`'s file must resolve inside: the repository for a project's files;
    /// none for the person's own `CLAUDE.md`.
    fn root_of(&self, kind: InstructionKind) -> Option<&Path> {
        kind.in_project().then(|| self.repo()).flatten()
    }

    pub fn path(&self, kind: InstructionKind) -> Result<PathBuf, InstructionError> {
        kind.path(self.env, self.repo())
            .ok_or(InstructionError::NoProject { kind })
    }

    /// Where prior versions of `kind` are kept: per project, so two repositories' `AGENTS.md`
    /// never share a history.
    pub fn archive_dir(&self, home: &AmbryHome, kind: InstructionKind) -> PathBuf {
        let scope = match (kind.in_project(), self.project) {
            (true, Some((slug, _))) => slug,
            _ => "user",
        };
        home.root()
            .join("instructions-archive")
            .join(scope)
            .join(kind.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstructionFile {
    pub kind: InstructionKind,
    pub path: PathBuf,
    pub exists: bool,
    pub bytes: u64,
    pub loaded_by: Vec<Agent>,
    /// Where the file points when it is a symbolic link (an edit is written there).
    pub link_target: Option<PathBuf>,
}

/// What a save did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedInstruction {
    /// The prior text's archived copy; `None` when the file was created or nothing changed.
    pub archived: Option<PathBuf>,
    /// False when the text was already exactly what is on disk.
    pub changed: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum InstructionError {
    #[error("{} belongs to a project; pick a project first", kind.as_str())]
    NoProject { kind: InstructionKind },
    #[error("not saved: the text looks like it contains a secret ({kind}: {excerpt}); agents read this file at the start of every session, so keep a pointer to where the secret lives instead")]
    SecretDetected { kind: &'static str, excerpt: String },
    #[error("not saved: {path} changed on disk since you started editing (an agent or an editor wrote it); copy your text, reload the file and edit again")]
    ChangedOnDisk { path: String },
    #[error(
        "{path} is {bytes} bytes, more than the app edits ({max} bytes); open it in your editor"
    )]
    TooLarge { path: String, bytes: u64, max: u64 },
    /// Not a regular file, not UTF-8, or a link out of its repository.
    #[error("{path} {reason}")]
    Unreadable { path: String, reason: String },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
}

impl ErrorCode for InstructionError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            InstructionError::NoProject { .. } => ambry_store::error::Code::NoProject,
            InstructionError::SecretDetected { .. } => ambry_store::error::Code::SecretDetected,
            InstructionError::ChangedOnDisk { .. } => ambry_store::error::Code::ChangedOnDisk,
            InstructionError::TooLarge { .. } => ambry_store::error::Code::TooLarge,
            InstructionError::Unreadable { .. } => ambry_store::error::Code::Unreadable,
            InstructionError::Io { .. } => ambry_store::error::Code::Io,
        }
    }
}

/// A save through a link is written at the link's target: for a project's file, only when that
/// target is inside the repository (its directory resolved, since the file may not exist yet).
fn refuse_outside(target: &Path, root: &Path) -> Result<(), InstructionError> {
    let dir = target.parent().unwrap_or(Path::new("/"));
    let (Ok(dir), Ok(root)) = (fs::canonicalize(dir), fs::canonicalize(root)) else {
        return Ok(()); // a directory that does not exist yet is created inside the repo below
    };
    if dir.starts_with(&root) {
        return Ok(());
    }
    Err(InstructionError::Unreadable {
        path: target.display().to_string(),
        reason: format!(
            "is outside {} (the file is a link leading out of its repository); Ambry does not write there",
            root.display()
        ),
    })
}

fn io(action: &'static str, path: &Path, source: std::io::Error) -> InstructionError {
    InstructionError::Io {
        action,
        path: path.display().to_string(),
        source,
    }
}

/// The file a link at `path` points to (relative links resolved against its folder).
fn link_target(path: &Path) -> Option<PathBuf> {
    let meta = fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    Some(fs::canonicalize(path).unwrap_or_else(|_| {
        let target = fs::read_link(path).unwrap_or_default();
        path.parent().unwrap_or(Path::new("/")).join(target)
    }))
}

fn describe(kind: InstructionKind, path: PathBuf) -> InstructionFile {
    let meta = fs::metadata(&path).ok().filter(|m| m.is_file());
    InstructionFile {
        kind,
        exists: meta.is_some(),
        bytes: meta.map_or(0, |m| m.len()),
        loaded_by: kind.loaded_by().to_vec(),
        link_target: link_target(&path),
        path,
    }
}

/// Every instruction file of the scope (the user-wide one too), present or not; without a
/// project only the user-wide file.
pub fn list(scope: &InstructionScope) -> Vec<InstructionFile> {
    InstructionKind::ALL
        .into_iter()
        .filter_map(|kind| Some(describe(kind, scope.path(kind).ok()?)))
        .collect()
}

/// One file's description.
pub fn file(
    scope: &InstructionScope,
    kind: InstructionKind,
) -> Result<InstructionFile, InstructionError> {
    Ok(describe(kind, scope.path(kind)?))
}

/// The file's text; `None` when it does not exist.
pub fn read(
    scope: &InstructionScope,
    kind: InstructionKind,
) -> Result<Option<String>, InstructionError> {
    read_path(&scope.path(kind)?, scope.root_of(kind))
}

/// A regular file, at most `MAX_INSTRUCTION_BYTES`; a project's file must resolve inside its
/// repository (a cloned `CLAUDE.md` may be a link to anywhere), the person's own may be a link
/// to their dotfiles.
fn read_path(path: &Path, root: Option<&Path>) -> Result<Option<String>, InstructionError> {
    let read = match root {
        Some(root) => read_regular_within(path, root, MAX_INSTRUCTION_BYTES),
        None => read_regular(path, MAX_INSTRUCTION_BYTES),
    };
    let unreadable = |reason: String| InstructionError::Unreadable {
        path: path.display().to_string(),
        reason,
    };
    match read {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| unreadable("is not UTF-8 text".into())),
        Err(ReadRefusal::Missing) => Ok(None),
        Err(ReadRefusal::TooLarge { size, limit }) => Err(InstructionError::TooLarge {
            path: path.display().to_string(),
            bytes: size,
            max: limit,
        }),
        Err(ReadRefusal::Io(e)) => Err(io("read", path, e)),
        Err(other) => Err(unreadable(other.to_string())),
    }
}

/// Saves `text` as `kind`. Refused when it holds a secret, or when `expected` is given and the
/// file is no longer what the editor started from (`Some(None)`: it did not exist). The prior
/// text, if any, is archived first.
pub fn save(
    home: &AmbryHome,
    scope: &InstructionScope,
    kind: InstructionKind,
    text: &str,
    expected: Option<Option<&str>>,
    now: DateTime<Utc>,
) -> Result<SavedInstruction, InstructionError> {
    let shown = scope.path(kind)?;
    if let Some(found) = find_secret(text) {
        return Err(InstructionError::SecretDetected {
            kind: found.kind,
            excerpt: found.excerpt,
        });
    }
    // Through a link, the file it points to is the one written (the link stays a link).
    let root = scope.root_of(kind);
    let path = link_target(&shown).unwrap_or(shown);
    if let Some(root) = root {
        refuse_outside(&path, root)?;
    }
    let prior = read_path(
        &path,
        Some(root.unwrap_or(path.parent().unwrap_or(Path::new("/")))),
    )?;
    if let Some(expected) = expected {
        if prior.as_deref() != expected {
            return Err(InstructionError::ChangedOnDisk {
                path: path.display().to_string(),
            });
        }
    }
    if prior.as_deref() == Some(text) {
        return Ok(SavedInstruction {
            archived: None,
            changed: false,
        });
    }
    let archived = match prior {
        Some(prior) => {
            let dir = scope.archive_dir(home, kind);
            fs::create_dir_all(&dir).map_err(|e| io("create", &dir, e))?;
            let name = format!(
                "{}.{:08x}.md",
                now.format("%Y%m%dT%H%M%S%.9fZ"),
                rand::random::<u32>()
            );
            ambry_store::storage::write_atomic(&dir, &name, prior.as_bytes())
                .map_err(|e| io("archive", &dir, e))?;
            Some(dir.join(name))
        }
        None => None,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    ambry_store::storage::write_atomic(dir, &file_name, text.as_bytes())
        .map_err(|e| io("write", &path, e))?;
    Ok(SavedInstruction {
        archived,
        changed: true,
    })
}

/// Archived prior versions of `kind` in this scope, oldest first.
pub fn archived_versions(
    home: &AmbryHome,
    scope: &InstructionScope,
    kind: InstructionKind,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(scope.archive_dir(home, kind))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        _tmp: tempfile::TempDir,
        env: AgentEnv,
        repo: PathBuf,
        home: AmbryHome,
        now: DateTime<Utc>,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let env = AgentEnv::new(tmp.path().join("u"), None, None);
        let repo = tmp.path().join("repo");
        fs::create_dir_all(&repo).unwrap();
        let home = AmbryHome::new(tmp.path().join("ambry"));
        Fixture {
            env,
            repo,
            home,
            now: "2026-11-23T10:00:00Z".parse().unwrap(),
            _tmp: tmp,
        }
    }

    #[test]
    fn lists_saves_archives_and_refuses_secrets() {
        let f = fixture();
        fs::write(f.repo.join("AGENTS.md"), "Run `make test`.\n").unwrap();
        let scope = InstructionScope {
            env: &f.env,
            project: Some(("repo-1", &f.repo)),
        };
        let user_only = InstructionScope {
            env: &f.env,
            project: None,
        };

        let files = list(&scope);
        assert_eq!(files.len(), 6);
        let agents = files
            .iter()
            .find(|f| f.kind == InstructionKind::ProjectAgents)
            .unwrap();
        assert!(agents.exists && agents.loaded_by == [Agent::Codex]);
        assert!(
            !files
                .iter()
                .find(|f| f.kind == InstructionKind::ProjectClaude)
                .unwrap()
                .exists
        );
        assert_eq!(
            list(&user_only)
                .iter()
                .map(|f| (f.kind, f.loaded_by.clone()))
                .collect::<Vec<_>>(),
            [
                (InstructionKind::UserClaude, vec![Agent::Claude]),
                (InstructionKind::UserAgents, vec![Agent::Codex]),
            ],
            "without a project only the user's own files: CLAUDE.md and Codex's AGENTS.md"
        );

        let saved = save(
            &f.home,
            &scope,
            InstructionKind::ProjectAgents,
            "Run `make check`.\n",
            None,
            f.now,
        )
        .unwrap();
        let archived = saved.archived.unwrap();
        assert!(
            archived.starts_with(
                f.home
                    .root()
                    .join("instructions-archive/repo-1/project-agents")
            ),
            "{archived:?}"
        );
        assert_eq!(fs::read_to_string(&archived).unwrap(), "Run `make test`.\n");
        assert_eq!(
            fs::read_to_string(f.repo.join("AGENTS.md")).unwrap(),
            "Run `make check`.\n"
        );
        let again = save(
            &f.home,
            &scope,
            InstructionKind::ProjectAgents,
            "Run `make check`.\n",
            None,
            f.now,
        )
        .unwrap();
        assert!(!again.changed && again.archived.is_none());
        assert_eq!(
            archived_versions(&f.home, &scope, InstructionKind::ProjectAgents),
            [archived]
        );

        let created = save(
            &f.home,
            &user_only,
            InstructionKind::UserClaude,
            "Be brief.\n",
            Some(None),
            f.now,
        )
        .unwrap();
        assert!(created.changed && created.archived.is_none());
        assert_eq!(
            fs::read_to_string(f.env.home.join(".claude/CLAUDE.md")).unwrap(),
            "Be brief.\n"
        );

        let secret = "deploy key: AKIAZ3MXQ7V2LPRT4K9B\n";
        let err = save(
            &f.home,
            &scope,
            InstructionKind::ProjectAgents,
            secret,
            None,
            f.now,
        )
        .unwrap_err();
        assert_eq!(err.code(), "secret_detected");
        assert_eq!(
            fs::read_to_string(f.repo.join("AGENTS.md")).unwrap(),
            "Run `make check`.\n"
        );
        assert!(matches!(
            save(
                &f.home,
                &user_only,
                InstructionKind::ProjectClaude,
                "x",
                None,
                f.now
            ),
            Err(InstructionError::NoProject { .. })
        ));
    }

    #[test]
    fn an_edit_over_a_file_changed_on_disk_is_refused_and_loses_nothing() {
        let f = fixture();
        let scope = InstructionScope {
            env: &f.env,
            project: Some(("repo-1", &f.repo)),
        };
        fs::write(
            f.repo.join("CLAUDE.md"),
            "# Rules\n- small commits\n- an agent's addition\n",
        )
        .unwrap();
        let err = save(
            &f.home,
            &scope,
            InstructionKind::ProjectClaude,
            "# Rules\n- tests first\n",
            Some(Some("# Rules\n- small commits\n")),
            f.now,
        )
        .unwrap_err();
        assert_eq!(err.code(), "changed_on_disk");
        assert_eq!(
            fs::read_to_string(f.repo.join("CLAUDE.md")).unwrap(),
            "# Rules\n- small commits\n- an agent's addition\n"
        );
        assert!(archived_versions(&f.home, &scope, InstructionKind::ProjectClaude).is_empty());
        let created_meanwhile = save(
            &f.home,
            &scope,
            InstructionKind::ProjectAgents,
            "mine\n",
            Some(None),
            f.now,
        );
        assert!(
            created_meanwhile.is_ok(),
            "a file that still does not exist is created"
        );
        fs::write(f.repo.join("AGENTS.md"), "theirs\n").unwrap();
        let err = save(
            &f.home,
            &scope,
            InstructionKind::ProjectAgents,
            "mine again\n",
            Some(Some("mine\n")),
            f.now,
        )
        .unwrap_err();
        assert_eq!(err.code(), "changed_on_disk");
    }

    #[test]
    fn a_linked_file_is_written_at_its_target_and_stays_a_link() {
        let f = fixture();
        let scope = InstructionScope {
            env: &f.env,
            project: Some(("repo-1", &f.repo)),
        };
        fs::write(f.repo.join("AGENTS.md"), "shared\n").unwrap();
        std::os::unix::fs::symlink("AGENTS.md", f.repo.join("CLAUDE.md")).unwrap();
        let listed = file(&scope, InstructionKind::ProjectClaude).unwrap();
        assert!(listed.exists);
        assert_eq!(
            listed.link_target.as_deref(),
            Some(
                fs::canonicalize(f.repo.join("AGENTS.md"))
                    .unwrap()
                    .as_path()
            )
        );
        save(
            &f.home,
            &scope,
            InstructionKind::ProjectClaude,
            "shared, edited\n",
            Some(Some("shared\n")),
            f.now,
        )
        .unwrap();
        assert!(fs::symlink_metadata(f.repo.join("CLAUDE.md"))
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            fs::read_to_string(f.repo.join("AGENTS.md")).unwrap(),
            "shared, edited\n"
        );
    }

    #[test]
    fn an_oversized_file_is_refused_for_editing_in_the_app() {
        let f = fixture();
        let scope = InstructionScope {
            env: &f.env,
            project: Some(("repo-1", &f.repo)),
        };
        fs::write(
            f.repo.join("AGENTS.md"),
            vec![b'x'; MAX_INSTRUCTION_BYTES as usize + 1],
        )
        .unwrap();
        assert_eq!(
            read(&scope, InstructionKind::ProjectAgents)
                .unwrap_err()
                .code(),
            "too_large"
        );
    }

    #[test]
    fn a_project_file_linking_out_of_its_repository_is_neither_read_nor_written() {
        let f = fixture();
        let scope = InstructionScope {
            env: &f.env,
            project: Some(("repo-1", &f.repo)),
        };
        let outside = f.repo.parent().unwrap().join("bashrc");
        fs::write(&outside, "export SECRET_OUTSIDE=1\n").unwrap();
        std::os::unix::fs::symlink(&outside, f.repo.join("CLAUDE.md")).unwrap();
        let err = read(&scope, InstructionKind::ProjectClaude).unwrap_err();
        assert_eq!(err.code(), "unreadable");
        assert!(!err.to_string().contains("SECRET_OUTSIDE"));
        let err = save(
            &f.home,
            &scope,
            InstructionKind::ProjectClaude,
            "overwritten\n",
            None,
            f.now,
        )
        .unwrap_err();
        assert_eq!(err.code(), "unreadable");
        assert_eq!(
            fs::read_to_string(&outside).unwrap(),
            "export SECRET_OUTSIDE=1\n"
        );
        // A FIFO is refused without blocking.
        fs::remove_file(f.repo.join("CLAUDE.md")).unwrap();
        let c = std::ffi::CString::new(f.repo.join("AGENTS.md").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(
            read(&scope, InstructionKind::ProjectAgents)
                .unwrap_err()
                .code(),
            "unreadable"
        );
    }
}
