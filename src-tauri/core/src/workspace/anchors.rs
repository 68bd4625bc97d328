//! The trust anchors (USER.md and a project's `.ambry/AMBRY.md`) as every front end reaches
//! them: named by whose anchor it is, never by a path a front end puts together.
//!
//! Owns: `AnchorOf` and reading, creating and saving an anchor through the workspace.
//! Deliberately does not: define the files' rules (bounded, link-safe reads, the secret check,
//! the skeleton): `ambry_store::anchors` does, and every method here goes through it.

use std::path::PathBuf;

use super::{Workspace, WorkspaceError};
use ambry_store::anchors::{self, AnchorKind, InitOutcome};
use ambry_store::project::Project;

/// Whose anchor: the person's USER.md, a known project's (by slug), or a resolved project's.
#[derive(Debug, Clone, Copy)]
pub enum AnchorOf<'a> {
    User,
    Known(&'a str),
    Project(&'a Project),
}

impl<'a> AnchorOf<'a> {
    /// USER.md without a slug, else that known project's anchor.
    pub fn known(slug: Option<&'a str>) -> Self {
        slug.map_or(AnchorOf::User, AnchorOf::Known)
    }
}

/// An anchor as it is on disk now.
#[derive(Debug, Clone)]
pub struct AnchorText {
    pub kind: AnchorKind,
    pub path: PathBuf,
    /// `None` while the file does not exist.
    pub text: Option<String>,
}

impl AnchorText {
    /// Still exactly the skeleton `init` wrote (compose leaves it out).
    pub fn untouched(&self) -> bool {
        anchors::is_untouched_skeleton(self.text.as_deref().unwrap_or_default())
    }
}

impl Workspace {
    /// Which anchor `of` is and where it lives.
    pub fn anchor_location(&self, of: AnchorOf) -> Result<(AnchorKind, PathBuf), WorkspaceError> {
        match of {
            AnchorOf::User => self.anchor_path(None),
            AnchorOf::Known(slug) => self.anchor_path(Some(slug)),
            AnchorOf::Project(project) => {
                Ok((AnchorKind::Project, anchors::project_anchor_path(project)))
            }
        }
    }

    /// The anchor's text as the person edits it.
    pub fn anchor(&self, of: AnchorOf) -> Result<AnchorText, WorkspaceError> {
        let (kind, path) = self.anchor_location(of)?;
        let text = anchors::read(&path)?;
        Ok(AnchorText { kind, path, text })
    }

    /// The anchor's text as an agent is given it: `None` when missing; refused when it holds
    /// what looks like a secret.
    pub fn anchor_for_agent(&self, of: AnchorOf) -> Result<Option<String>, WorkspaceError> {
        let (_, path) = self.anchor_location(of)?;
        Ok(anchors::read_for_agent(&path)?)
    }

    /// Writes the skeleton when the anchor is missing; never overwrites.
    pub fn init_anchor(&self, of: AnchorOf) -> Result<InitOutcome, WorkspaceError> {
        let (kind, path) = self.anchor_location(of)?;
        Ok(anchors::init(kind, &path)?)
    }

    /// Replaces the anchor's text (refused when it looks like it holds a secret).
    pub fn save_anchor(&self, of: AnchorOf, text: &str) -> Result<(), WorkspaceError> {
        let (_, path) = self.anchor_location(of)?;
        Ok(anchors::save(&path, text)?)
    }
}
