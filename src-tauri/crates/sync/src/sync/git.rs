//! Running the `git` CLI for sync: the person's own git, credentials, SSH agent and hosts.
//!
//! Owns: how one git command runs — its own process group, killed whole (by its id) when it
//! outlives its deadline; no prompt for a password (`GIT_TERMINAL_PROMPT=0`, SSH in batch mode
//! with a connect timeout unless the person set how git runs SSH, a stalled HTTP transfer
//! dropped), an identity passed on the command
//! line so the person's global config is not needed for one, no hooks, no signing, no
//! automatic gc — and the version check.
//! Deliberately does not: know what the commands mean for memories (see `repo` and `engine`).

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use super::SyncError;

/// The oldest git whose plumbing sync relies on (`ls-tree -z -l`, `merge-base --is-ancestor`,
/// `update-index -z --index-info`, `push --porcelain`).
pub const MIN_GIT: (u32, u32) = (2, 20);
const MIN_GIT_TEXT: &str = "2.20";

/// A local command (plumbing on the sync repository).
pub const LOCAL_TIMEOUT: Duration = Duration::from_secs(120);
/// A fetch or push, once the probe found the remote: an SSH host that stops answering is
/// dropped by its keep-alive, a stalled HTTP transfer by the low-speed window; this bounds
/// everything else.
pub const NETWORK_TIMEOUT: Duration = Duration::from_secs(120);
/// What the `git ls-remote` that starts every sync gets before the remote counts as
/// unreachable: a sync never waits longer than this on a remote that does not answer.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(9);

/// SSH gives up on a host that does not answer; never asks for a password on a terminal.
const SSH_COMMAND: &str =
    "ssh -o ConnectTimeout=5 -o ServerAliveInterval=5 -o ServerAliveCountMax=2 -o BatchMode=yes";

/// One git repository driven by sync.
#[derive(Debug, Clone)]
pub struct Git {
    git_dir: PathBuf,
    program: PathBuf,
}

/// What a finished git command printed.
pub struct Output {
    pub success: bool,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Output {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).trim().to_string()
    }
}

impl Git {
    pub fn new(git_dir: &Path) -> Git {
        Git {
            git_dir: git_dir.to_path_buf(),
            program: PathBuf::from("git"),
        }
    }

    /// Fails with a clear error when git is missing or older than [`MIN_GIT`].
    pub fn check_version(&self) -> Result<(), SyncError> {
        let out = Command::new(&self.program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| SyncError::GitMissing {
                reason: e.to_string(),
                min: MIN_GIT_TEXT,
            })?;
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let version = text.strip_prefix("git version ").unwrap_or(&text);
        let mut parts = version.split(|c: char| !c.is_ascii_digit());
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        match (major, minor) {
            (Some(major), Some(minor)) if (major, minor) >= MIN_GIT => Ok(()),
            (Some(_), Some(_)) => Err(SyncError::GitTooOld {
                found: version.to_string(),
                min: MIN_GIT_TEXT,
            }),
            _ => Err(SyncError::GitMissing {
                reason: format!("`git --version` printed `{text}`"),
                min: MIN_GIT_TEXT,
            }),
        }
    }

    /// The environment a fetch or push gets: SSH in batch mode with a connect timeout — unless
    /// the person chose how git runs SSH (`GIT_SSH_COMMAND`, `GIT_SSH`, `core.sshCommand`, read
    /// as git reads them), which is kept as it is.
    pub fn network_env(&self) -> Vec<(&'static str, &'static Path)> {
        let chosen_in_env = ["GIT_SSH_COMMAND", "GIT_SSH"]
            .iter()
            .any(|key| std::env::var_os(key).is_some_and(|v| !v.is_empty()));
        let chosen_in_config = self
            .run(
                &["config", "--get", "core.sshCommand"],
                None,
                &[],
                LOCAL_TIMEOUT,
            )
            .is_ok_and(|out| out.success && !out.text().is_empty());
        if chosen_in_env || chosen_in_config {
            Vec::new()
        } else {
            vec![("GIT_SSH_COMMAND", Path::new(SSH_COMMAND))]
        }
    }

    /// Runs `git <args>`; a non-zero exit is an error naming the command and what git said.
    pub fn ok(&self, args: &[&str]) -> Result<Output, SyncError> {
        let out = self.run(args, None, &[], LOCAL_TIMEOUT)?;
        if out.success {
            Ok(out)
        } else {
            Err(failed(args, &out))
        }
    }

    /// Runs `git <args>` with `stdin` fed and extra environment, within `timeout`; the exit
    /// status is the caller's to judge.
    pub fn run(
        &self,
        args: &[&str],
        stdin: Option<Vec<u8>>,
        env: &[(&str, &Path)],
        timeout: Duration,
    ) -> Result<Output, SyncError> {
        let mut cmd = Command::new(&self.program);
        cmd.arg("--git-dir")
            .arg(&self.git_dir)
            .args([
                "-c",
                "user.name=Ambry sync",
                "-c",
                "user.email=sync@ambry.invalid",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "commit.gpgSign=false",
                "-c",
                "gc.auto=0",
                "-c",
                "core.quotePath=false",
                "-c",
                "http.lowSpeedLimit=1000",
                "-c",
                "http.lowSpeedTime=8",
            ])
            .args(args)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        for (key, value) in env {
            cmd.env(key, value);
        }
        let command = args.first().copied().unwrap_or("").to_string();
        let mut child = cmd.spawn().map_err(|e| SyncError::GitMissing {
            reason: e.to_string(),
            min: MIN_GIT_TEXT,
        })?;
        let pid = child.id() as i32;
        if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let out_reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(pipe) = stdout.as_mut() {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        });
        let err_reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(pipe) = stderr.as_mut() {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        });
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let status = match rx.recv_timeout(timeout) {
            Ok(status) => status.map_err(|e| SyncError::Git {
                command: command.clone(),
                reason: e.to_string(),
            })?,
            Err(_) => {
                kill_group(pid);
                return Err(SyncError::TimedOut {
                    command,
                    seconds: timeout.as_secs(),
                });
            }
        };
        let stdout = out_reader.join().unwrap_or_default();
        let stderr = err_reader.join().unwrap_or_default();
        Ok(Output {
            success: status.success(),
            stdout,
            stderr: String::from_utf8_lossy(&stderr).trim().to_string(),
        })
    }
}

/// The error for a git command that exited non-zero.
pub fn failed(args: &[&str], out: &Output) -> SyncError {
    SyncError::Git {
        command: args.iter().take(2).copied().collect::<Vec<_>>().join(" "),
        reason: if out.stderr.is_empty() {
            "it exited with an error and said nothing".into()
        } else {
            last_lines(&out.stderr)
        },
    }
}

/// The end of what git said: its last lines carry the reason.
pub fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals exactly that process group; a group already
    // gone is ESRCH, ignored.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}
