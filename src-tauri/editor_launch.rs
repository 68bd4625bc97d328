//! Starting the editor core resolved (`Workspace::editor_for`), detached from the app.
//!
//! Owns: spawning the process or calling the desktop opener, and reporting a failure that
//! names what was tried. Deliberately does not: decide which editor; core does.

use std::path::Path;
use std::process::{Command, Stdio};

use ambry_core::editor::EditorLaunch;
use ambry_core::error::FrontEndCode;
use ambry_core::Workspace;

use crate::ipc_error::{front_end, IpcResult};

/// Opens `path`; returns a short description of what was launched.
pub fn open_file(ws: &Workspace, path: &Path) -> IpcResult<String> {
    match ws.editor_for(path)? {
        EditorLaunch::Command {
            program,
            args,
            source,
        } => {
            let mut child = Command::new(&program)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| {
                    front_end(
                        FrontEndCode::LaunchFailed,
                        format!("cannot start `{program}` (from {}): {e}", source.describe()),
                    )
                })?;
            // Reap the child when it exits so it never lingers as a zombie.
            std::thread::spawn(move || child.wait());
            Ok(program)
        }
        EditorLaunch::SystemDefault { path } => {
            open::that_detached(&path).map_err(|e| {
                front_end(
                    FrontEndCode::LaunchFailed,
                    format!(
                        "no application opens {}: {e}; set editor.command in config.toml",
                        path.display()
                    ),
                )
            })?;
            Ok("the system default application".into())
        }
    }
}
