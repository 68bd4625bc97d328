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
