//! Starting the editor core resolved (`Workspace::editor_for`), detached from the app.
//!
//! Owns: the environment the choice needs (`$TERMINAL`, what is on PATH), spawning the process
//! or calling the desktop opener, and telling the person the truth: success only once the
//! program really started (still running after its start, or exited 0 as launchers that hand
//! the file to a running instance do), otherwise what it said. Deliberately does not: decide
//! which editor or terminal; core does.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ambry_core::FrontEndCode;
use ambry_core::Workspace;
use ambry_core::{in_terminal_if_needed, system_openers, EditorLaunch};

use crate::ipc_error::{front_end, IpcResult};

/// How long a just-started editor is watched for an early exit. An editor that cannot run
/// (vim without a terminal, a terminal without a display) quits well within this.
const START_GRACE: Duration = Duration::from_millis(600);

/// The most of a failed program's stderr quoted back.
const STDERR_KEPT: usize = 2000;

/// Opens `path`; returns a short description of what was launched ("vim in xterm").
pub fn open_file(ws: &Workspace, path: &Path) -> IpcResult<String> {
    let terminal_env = std::env::var("TERMINAL").ok();
    let launch = in_terminal_if_needed(ws.editor_for(path)?, terminal_env.as_deref(), &on_path)?;
    match launch {
        EditorLaunch::Command {
            program,
            args,
            source,
        } => {
            start_and_watch(&program, &args, &format!("from {}", source.describe()))?;
            Ok(short_name(&program))
        }
        EditorLaunch::InTerminal {
            terminal,
            args,
            editor,
            source,
        } => {
            start_and_watch(
                &terminal,
                &args,
                &format!("the terminal for {editor} from {}", source.describe()),
            )?;
            Ok(format!(
                "{} in {}",
                short_name(&editor),
                short_name(&terminal)
            ))
        }
        EditorLaunch::SystemDefault { path } => open_with_system_default(&path),
    }
}

/// Hands `path` to the first desktop opener that really opens it (watched like an editor: an
/// opener that knows no application for the file exits non-zero). With none on PATH, or none
/// that succeeded, the error is `no_default_application` and says what was tried, so the app
/// can open the file in its own editor instead of claiming it opened.
fn open_with_system_default(path: &Path) -> IpcResult<String> {
    let mut tried = Vec::new();
    for (program, args) in system_openers(path) {
        if !on_path(&program) {
            tried.push(format!("{program}: not installed"));
            continue;
        }
        match start_and_watch(&program, &args, "the system default application") {
            Ok(()) => return Ok("the system default application".into()),
            Err(e) => tried.push(e.message),
        }
    }
    Err(front_end(
        FrontEndCode::NoDefaultApplication,
        format!(
            "no editor is set up (editor.command, $VISUAL, $EDITOR) and no application opens {} ({})",
            path.display(),
            tried.join("; ")
        ),
    ))
}

/// A program as the person knows it: `vim`, not `/usr/bin/vim`.
fn short_name(program: &str) -> String {
    Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.to_string())
}

/// Whether `program` names an executable: a path, or a name found in a PATH directory.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| executable(&dir.join(program))))
        .unwrap_or(false)
}

/// Spawns `program args…` and waits [`START_GRACE`] for it to fail. A program still running
/// then, or one that exited 0 (a launcher that forked), has started; anything else is an
/// error quoting its stderr. The child is reaped when it ends, so it never lingers.
fn start_and_watch(program: &str, args: &[String], what: &str) -> IpcResult<()> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            front_end(
                FrontEndCode::LaunchFailed,
                format!("cannot start `{program}` ({what}): {e}"),
            )
        })?;
    let stderr = drain_stderr(&mut child);
    let deadline = Instant::now() + START_GRACE;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                // The pipe closes with the program (unless something it started holds it).
                let _ = stderr.done.recv_timeout(Duration::from_millis(300));
                let said = String::from_utf8_lossy(&stderr.kept.lock().unwrap())
                    .trim()
                    .to_string();
                let said = if said.is_empty() {
                    String::new()
                } else {
                    format!(": {said}")
                };
                return Err(front_end(
                    FrontEndCode::LaunchFailed,
                    format!("`{program}` ({what}) quit at once ({status}){said}"),
                ));
            }
            Ok(None) if Instant::now() >= deadline => break,
            Ok(None) => std::thread::sleep(Duration::from_millis(25)),
            Err(e) => {
                return Err(front_end(
                    FrontEndCode::LaunchFailed,
                    format!("cannot watch `{program}` ({what}): {e}"),
                ))
            }
        }
    }
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// Reads the child's stderr to its end on a thread of its own (a full pipe would stall the
/// editor), keeping only the first [`STDERR_KEPT`] bytes.
struct Stderr {
    kept: Arc<Mutex<Vec<u8>>>,
    /// Closed (disconnected) when the pipe has ended.
    done: std::sync::mpsc::Receiver<()>,
}

fn drain_stderr(child: &mut Child) -> Stderr {
    let kept = Arc::new(Mutex::new(Vec::new()));
    let (ended, done) = std::sync::mpsc::channel::<()>();
    if let Some(mut pipe) = child.stderr.take() {
        let kept = Arc::clone(&kept);
        std::thread::spawn(move || {
            let _ended = ended;
            let mut chunk = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut kept = kept.lock().unwrap();
                let room = STDERR_KEPT.saturating_sub(kept.len());
                kept.extend_from_slice(&chunk[..n.min(room)]);
            }
        });
    }
    Stderr { kept, done }
}
