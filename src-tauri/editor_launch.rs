//! Starting the editor core resolved (`engram_core::editor`), detached from the app.
//!
//! Owns: spawning the process or calling the desktop opener, and reporting a failure that
//! names what was tried. Deliberately does not: decide which editor; core does.

use std::path::Path;
use std::process::{Command, Stdio};

use engram_core::editor::{resolve_editor, EditorLaunch};

use crate::ipc_error::{IpcError, IpcResult};
use crate::state::LaunchEnv;

/// Opens `path`; returns a short description of what was launched.
pub fn open_file(configured: &str, env: &LaunchEnv, path: &Path) -> IpcResult<String> {
    match resolve_editor(configured, env.visual.as_deref(), env.editor.as_deref(), path)? {
        EditorLaunch::Command { program, args, source } => {
            let mut child = Command::new(&program)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| {
                    IpcError::new(
                        "launch_failed",
                        format!("cannot start `{program}` (from {}): {e}", source.describe()),
                    )
                })?;
            // Reap the child when it exits so it never lingers as a zombie.
            std::thread::spawn(move || child.wait());
            Ok(program)
        }
        EditorLaunch::SystemDefault { path } => {
            open::that_detached(&path).map_err(|e| {
                IpcError::new(
                    "launch_failed",
                    format!("no application opens {}: {e}; set editor.command in config.toml", path.display()),
                )
            })?;
            Ok("the system default application".into())
        }
    }
}
