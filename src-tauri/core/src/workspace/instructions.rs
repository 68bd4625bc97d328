//! Agents' instruction files through the workspace: the user-wide `CLAUDE.md` and a known
//! project's `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md` and `AGENTS.md`, located from
//! the launch environment (`CLAUDE_CONFIG_DIR` honoured) and the project's recorded root.
//!
//! Owns: turning "this project, this kind" into a file (the UI never sends a path), and the one
//! view of a file the app and the compose preview show.
//! Deliberately does not: decide what is archived, refused or written how (`instructions` does).

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Workspace, WorkspaceError};
use ambry_compose::agents::AgentEnv;
use ambry_compose::instructions::{
    self, InstructionFile, InstructionKind, InstructionScope, SavedInstruction,
};

/// One instruction file and its text, as the app shows it.
#[derive(Debug, Clone, Serialize)]
pub struct InstructionView {
    #[serde(flatten)]
    pub file: InstructionFile,
    /// The text on disk; empty when the file does not exist.
    pub text: String,
    /// How many prior versions edits made in the app archived.
    pub archived_versions: usize,
}

/// The agents' locations and, for a project, its slug and root: everything a scope needs.
struct Located {
    env: AgentEnv,
    project: Option<(String, PathBuf)>,
}

impl Located {
    fn scope(&self) -> InstructionScope<'_> {
        InstructionScope {
            env: &self.env,
            project: self
                .project
                .as_ref()
                .map(|(slug, root)| (slug.as_str(), root.as_path())),
        }
    }
}

impl Workspace {
    fn locate_instructions(&self, slug: Option<&str>) -> Result<Located, WorkspaceError> {
        let env = self.agent_env()?;
        let project =
            match slug {
                None => None,
                Some(slug) => {
                    let known = self.project(slug)?;
                    let root = known.roots.first().cloned().ok_or_else(|| {
                        WorkspaceError::NoProjectRoot {
                            project: known.display_name(),
                        }
                    })?;
                    Some((known.slug.clone(), root))
                }
            };
        Ok(Located { env, project })
    }

    /// The instruction files agents load by themselves in `slug`'s repository, plus the
    /// user-wide one (only that one without a project), present or not.
    pub fn instruction_files(
        &self,
        slug: Option<&str>,
    ) -> Result<Vec<InstructionFile>, WorkspaceError> {
        Ok(instructions::list(&self.locate_instructions(slug)?.scope()))
    }

    /// One file with its text.
    pub fn instruction(
        &self,
        slug: Option<&str>,
        kind: InstructionKind,
    ) -> Result<InstructionView, WorkspaceError> {
        let located = self.locate_instructions(slug)?;
        let scope = located.scope();
        let file = instructions::file(&scope, kind)?;
        let text = instructions::read(&scope, kind)?.unwrap_or_default();
        Ok(InstructionView {
            file,
            text,
            archived_versions: instructions::archived_versions(&self.home, &scope, kind).len(),
        })
    }

    /// Saves a person's edit (see `instructions::save` for what is refused and archived).
    pub fn save_instruction(
        &self,
        slug: Option<&str>,
        kind: InstructionKind,
        text: &str,
        expected: Option<Option<&str>>,
        now: DateTime<Utc>,
    ) -> Result<SavedInstruction, WorkspaceError> {
        let located = self.locate_instructions(slug)?;
        Ok(instructions::save(
            &self.home,
            &located.scope(),
            kind,
            text,
            expected,
            now,
        )?)
    }

    /// The file to open in the person's editor.
    pub fn instruction_path(
        &self,
        slug: Option<&str>,
        kind: InstructionKind,
    ) -> Result<PathBuf, WorkspaceError> {
        Ok(self.locate_instructions(slug)?.scope().path(kind)?)
    }
}
