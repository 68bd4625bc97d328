//! Known projects for the sidebar, and adding one by picking its folder.

use ambry_core::FrontEndCode;
use ambry_core::KnownProject;
use serde::Serialize;
use tauri::AppHandle;
use tauri_plugin_dialog::DialogExt;

use crate::ipc_error::{front_end, IpcResult};
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct ProjectView {
    pub slug: String,
    pub name: String,
    pub roots: Vec<String>,
    pub remote: Option<String>,
    /// Whether the repository has its trust anchor (`.ambry/AMBRY.md`): the sidebar lists only
    /// anchors that exist; the project's view offers to create a missing one.
    pub has_anchor: bool,
    /// Team memories in the repository's working tree (`.ambry/memory/`, DESIGN §15), and
    /// whether this person trusts them (only then are agents given them).
    pub team_memories: usize,
    pub team_trusted: bool,
}

impl From<KnownProject> for ProjectView {
    fn from(p: KnownProject) -> Self {
        ProjectView {
            has_anchor: !p.roots.is_empty()
                && ambry_core::project_anchor_path(&p.to_project()).is_file(),
            name: p.display_name(),
            roots: p.roots.iter().map(|r| r.display().to_string()).collect(),
            slug: p.slug,
            remote: p.remote,
            team_memories: 0,
            team_trusted: false,
        }
    }
}

/// The view of `p`, with its team memory as the workspace finds it.
fn view_of(ws: &ambry_core::Workspace, p: KnownProject) -> ProjectView {
    let team = ws.team_of(&p.slug).ok().flatten();
    let mut view = ProjectView::from(p);
    if let Some(team) = team {
        view.team_memories = team.memories;
        view.team_trusted = team.trusted;
    }
    view
}

/// Trusts (or stops trusting) a known project's team memory: agents are given it from their
/// next turn (DESIGN §15).
#[tauri::command]
pub async fn trust_team(
    app: AppHandle,
    project: String,
    trusted: bool,
) -> IpcResult<ambry_core::TeamTrust> {
    off_main(app, move |ws| {
        let known = ws.project(&project)?;
        let root = known.roots.first().cloned().ok_or_else(|| {
            front_end(
                FrontEndCode::NotFound,
                format!("{} has no folder on this machine", known.display_name()),
            )
        })?;
        Ok(ws.set_team_trust(&root, trusted, chrono::Utc::now())?)
    })
    .await
}

#[tauri::command]
pub async fn list_projects(app: AppHandle) -> IpcResult<Vec<ProjectView>> {
    off_main(app, |ws| {
        Ok(ws
            .known_projects()?
            .into_iter()
            .map(|p| view_of(ws, p))
            .collect())
    })
    .await
}

/// Opens the native folder picker; the chosen folder is resolved to its repository and recorded.
/// `None` when the person cancels.
#[tauri::command]
pub async fn add_project(app: AppHandle) -> IpcResult<Option<ProjectView>> {
    let picker = app.clone();
    off_main(app, move |ws| {
        let mut dialog = picker.dialog().file().set_title("Add a project folder");
        // Opens in the person's home (where repositories are), not on an empty Recent list.
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            dialog = dialog.set_directory(home);
        }
        let Some(folder) = dialog.blocking_pick_folder() else {
            return Ok(None);
        };
        let folder = folder.into_path().map_err(|e| {
            front_end(
                FrontEndCode::Usage,
                format!("the chosen folder is not a local path: {e}"),
            )
        })?;
        Ok(Some(ws.add_project(&folder)?.into()))
    })
    .await
}
