//! Child processes of the real-client tests: each started in its own process group, waited for
//! with a deadline (a thread blocks in `wait`, the test blocks on a channel: no polling sleeps),
//! and the whole group killed by its id when the guard drops, whatever happened.
//!
//! Owns: spawning, deadlines, the kill-on-drop guard, capturing stdout/stderr into files (so a
//! chatty child never blocks on a full pipe), and line-by-line reading for interactive sessions.
//! Deliberately does not: build command lines or environments (`world`).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// How long one client invocation may take before the test fails (a first start of Claude Code
/// on two busy cores takes seconds, a turn against the mock well under one).
pub const DEADLINE: Duration = Duration::from_secs(180);

/// Kills the process group `pgid` when dropped: the client and everything it started (MCP
/// servers, hooks), by id, never by name.
pub struct GroupGuard {
    pgid: u32,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        // `kill -KILL -- -PGID`: the group, not a name. Failing means the group is already gone.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.pgid)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// What a finished child left behind.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    /// Panics with both streams unless the child exited 0.
    pub fn ok(self, what: &str) -> Finished {
        assert!(
            self.status.success(),
            "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
            self.status,
            self.stdout,
            self.stderr
        );
        self
    }
}

fn spawn_in_group(
    mut cmd: Command,
    logs: &Path,
    label: &str,
    stdin: Stdio,
) -> (Child, GroupGuard, PathBuf, PathBuf) {
    let out = logs.join(format!("{label}.stdout"));
    let err = logs.join(format!("{label}.stderr"));
    cmd.process_group(0)
        .stdin(stdin)
        .stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap());
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {label}: {e}"));
    let guard = GroupGuard { pgid: child.id() };
    (child, guard, out, err)
}

fn waiter(mut child: Child) -> Receiver<ExitStatus> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        if let Ok(status) = child.wait() {
            let _ = tx.send(status);
        }
    });
    rx
}

/// Runs `cmd` to its end (stdin closed), or fails the test at the deadline with what it printed.
pub fn run(cmd: Command, logs: &Path, label: &str) -> Finished {
    let (child, guard, out, err) = spawn_in_group(cmd, logs, label, Stdio::null());
    let done = waiter(child);
    let status = done.recv_timeout(DEADLINE);
    drop(guard);
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    match status {
        Ok(status) => Finished {
            status,
            stdout: read(&out),
            stderr: read(&err),
        },
        Err(_) => panic!(
            "{label} did not finish within {DEADLINE:?}:\n--- stdout\n{}\n--- stderr\n{}",
            read(&out),
            read(&err)
        ),
    }
}

/// A child fed on stdin and read line by line on stdout (Claude Code's stream-json session).
pub struct Session {
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    done: Receiver<ExitStatus>,
    err: PathBuf,
    label: String,
    _guard: GroupGuard,
}

impl Session {
    pub fn start(mut cmd: Command, logs: &Path, label: &str) -> Session {
        let err = logs.join(format!("{label}.stderr"));
        cmd.process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(File::create(&err).unwrap());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {label}: {e}"));
        let guard = GroupGuard { pgid: child.id() };
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Session {
            stdin,
            lines,
            done: waiter(child),
            err,
            label: label.to_string(),
            _guard: guard,
        }
    }

    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Reads stdout until a line satisfies `until`; returns every line read. Fails the test at
    /// the deadline or when the child ends first.
    pub fn read_until(&mut self, until: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + DEADLINE;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let stop = until(&line);
                    seen.push(line);
                    if stop {
                        return seen;
                    }
                }
                Err(_) => panic!(
                    "{}: ended or timed out before the expected line:\n--- stdout\n{}\n--- stderr\n{}",
                    self.label,
                    seen.join("\n"),
                    std::fs::read_to_string(&self.err).unwrap_or_default()
                ),
            }
        }
    }

    /// Closes stdin and waits for the end.
    pub fn finish(mut self) -> ExitStatus {
        self.stdin.take();
        while self.lines.recv_timeout(DEADLINE).is_ok() {}
        self.done
            .recv_timeout(DEADLINE)
            .unwrap_or_else(|_| panic!("{} did not end after stdin closed", self.label))
    }
}
