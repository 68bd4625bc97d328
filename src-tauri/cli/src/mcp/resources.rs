//! The MCP resources: the two memory indexes (MEMORY.md of the user scope and of the server's
//! project) and the trust anchors (USER.md, the repository's `.ambry/AMBRY.md`), read-only.
//!
//! Owns: their URIs (`ambry://…`) and reading them. Deliberately does not: offer writes; the
//! anchors are the person's, and the indexes are generated.

use std::path::{Path, PathBuf};

use ambry_core::{AnchorOf, Scope, Workspace};
use rmcp::model::{ReadResourceResponse, ReadResourceResult, Resource, ResourceContents};
use rmcp::ErrorData;

const USER_INDEX: &str = "ambry://memory/user/MEMORY.md";
const PROJECT_INDEX: &str = "ambry://memory/project/MEMORY.md";
const USER_ANCHOR: &str = "ambry://anchors/USER.md";
const PROJECT_ANCHOR: &str = "ambry://anchors/project/AMBRY.md";

/// What each resource is, and where it lives (None: not available from this directory).
fn all(ws: &Workspace, cwd: &Path) -> Vec<(&'static str, &'static str, Option<PathBuf>)> {
    let place = ws.place_at(cwd);
    let project = place.project().cloned();
    vec![
        (
            USER_INDEX,
            "The user's memory index",
            place.index_file(Scope::User).ok(),
        ),
        (
            PROJECT_INDEX,
            "This project's memory index",
            place.index_file(Scope::Project).ok(),
        ),
        (
            USER_ANCHOR,
            "The person's own preferences (USER.md)",
            ws.anchor_location(AnchorOf::User)
                .ok()
                .map(|(_, path)| path),
        ),
        (
            PROJECT_ANCHOR,
            "The repository's project context (.ambry/AMBRY.md)",
            project.and_then(|p| {
                let (_, path) = ws.anchor_location(AnchorOf::Project(&p)).ok()?;
                Some(path)
            }),
        ),
    ]
}

/// The resources that exist now.
pub fn list(ws: &Workspace, cwd: &Path) -> Vec<Resource> {
    all(ws, cwd)
        .into_iter()
        .filter(|(_, _, path)| path.as_deref().is_some_and(Path::is_file))
        .map(|(uri, title, _)| Resource::new(uri, title).with_mime_type("text/markdown"))
        .collect()
}

pub fn read(ws: &Workspace, cwd: &Path, uri: &str) -> Result<ReadResourceResponse, ErrorData> {
    let found = all(ws, cwd).into_iter().find(|(u, _, _)| *u == uri);
    let Some((_, _, Some(path))) = found else {
        return Err(not_found(format!(
            "no resource at {}",
            ambry_core::quoted(uri)
        )));
    };
    let text = match uri {
        USER_INDEX | PROJECT_INDEX => {
            let scope = if uri == USER_INDEX {
                Scope::User
            } else {
                Scope::Project
            };
            ws.place_at(cwd)
                .index_text(scope)
                .map_err(|e| ambry_core::report(&e))
        }
        // Anchors reach the agent: bounded, never through a link out of their repository or
        // home, and left out when they hold a secret.
        _ => {
            // `all` found a path for the project anchor only when `cwd` is in a project.
            let project = ws.place_at(cwd).project().cloned();
            let of = match &project {
                Some(project) if uri == PROJECT_ANCHOR => AnchorOf::Project(project),
                _ => AnchorOf::User,
            };
            ws.anchor_for_agent(of).map_err(|e| ambry_core::report(&e))
        }
    };
    match text {
        Ok(Some(text)) => {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
        }
        Ok(None) => Err(not_found(format!(
            "{uri} does not exist yet ({})",
            path.display()
        ))),
        Err(e) => Err(ErrorData::internal_error(e.message.clone(), Some(json(&e)))),
    }
}

/// A resource error carries the same `{code, message}` a tool error does, as its data.
fn json(report: &ambry_core::ErrorReport) -> serde_json::Value {
    serde_json::to_value(report).unwrap_or_default()
}

fn not_found(message: String) -> ErrorData {
    let report = ambry_core::Code::NotFound.report(message);
    ErrorData::resource_not_found(report.message.clone(), Some(json(&report)))
}
