//! Shared scaffolding: a temp home and a command pointed at it.

use assert_cmd::Command;
use tempfile::TempDir;

/// A throwaway AMBRY_HOME plus a throwaway working directory.
pub struct Sandbox {
    pub home: TempDir,
    pub cwd: TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            cwd: tempfile::tempdir().unwrap(),
        }
    }

    /// `ambry` with `--home` and `--cwd` set to this sandbox, and no inherited AMBRY_HOME.
    pub fn ambry(&self) -> Command {
        let mut cmd = Command::cargo_bin("ambry").unwrap();
        // Tests that want the self-starting compose service remove this.
        cmd.env_remove("AMBRY_HOME")
            .env("AMBRY_SERVICE_AUTOSTART", "0")
            .env("HOME", self.home.path())
            .arg("--home")
            .arg(self.home.path())
            .arg("--cwd")
            .arg(self.cwd.path());
        cmd
    }
}

/// This crate's directory: the one cargo runs the test from now, else the one it was built in
/// (a build cache shared between checkouts may hold a binary built in another, gone since).
pub fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into)
}

/// A stand-in for `claude -p` in `dir`: logs each call (with its `AMBRY_DISTILL`) and its stdin
/// to `calls.log`, then prints `result` (Claude Code's JSON result) and exits with `exit`.
pub fn stub_agent(
    dir: &std::path::Path,
    result: &serde_json::Value,
    exit: i32,
) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let log = dir.join("calls.log");
    let out = dir.join("result.json");
    std::fs::write(&out, result.to_string()).unwrap();
    let script = dir.join("fake-claude");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"call AMBRY_DISTILL=$AMBRY_DISTILL\" >> '{log}'\ncat >> '{log}'\ncat '{out}'\nexit {exit}\n",
            log = log.display(),
            out = out.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// Claude Code's JSON result carrying `answer` as its structured output.
pub fn answered(answer: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"type": "result", "is_error": false, "result": "", "structured_output": answer})
}

/// Everything the stand-in of `dir` logged: a `call …` line per run, then what it was sent.
pub fn stub_log(dir: &std::path::Path) -> String {
    std::fs::read_to_string(dir.join("calls.log")).unwrap_or_default()
}

/// How many times the stand-in of `dir` ran.
pub fn stub_calls(dir: &std::path::Path) -> usize {
    stub_log(dir)
        .lines()
        .filter(|l| l.starts_with("call "))
        .count()
}
