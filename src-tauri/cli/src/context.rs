//! What every command needs: the workspace (home, config, model, caches), the cwd, the output
//! mode.
//!
//! Owns: turning global flags and the process environment (read once, by core's one rule) into
//! a workspace, and printing a failure (`error: …` on stderr; with `--json`, also
//! `{"code","message","field"?}` on stderr, by core's one error vocabulary).
//! Deliberately does not: hold any rule of its own; every command calls the workspace.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use ambry_core::Config;
use ambry_core::Place;
use ambry_core::{AmbryHome, LaunchEnv, Workspace};
use anyhow::{Context as _, Result};

pub struct Context {
    pub workspace: Arc<Workspace>,
    pub cwd: PathBuf,
    pub json: bool,
}

impl Context {
    pub fn from_flags(home: Option<PathBuf>, cwd: Option<PathBuf>, json: bool) -> Result<Self> {
        let workspace = Workspace::open(home, LaunchEnv::from_process())?;
        let cwd = match cwd {
            Some(dir) => dir,
            None => std::env::current_dir()
                .context("cannot read the current directory; pass --cwd DIR")?,
        };
        Ok(Self {
            workspace,
            cwd,
            json,
        })
    }

    pub fn home(&self) -> &AmbryHome {
        self.workspace.home()
    }

    /// The configuration; a bad file is an error naming key and line.
    pub fn config(&self) -> Result<Config> {
        Ok(self.workspace.config()?)
    }

    /// The project the cwd belongs to (a git repository, else the directory itself).
    pub fn project(&self) -> Result<ambry_core::Project> {
        self.workspace
            .project_at(&self.cwd)
            .with_context(|| format!("cannot use {} as the working directory", self.cwd.display()))
    }

    /// The user scope and, when the cwd resolves, the cwd's project.
    pub fn place(&self) -> Place {
        self.workspace.place_at(&self.cwd)
    }

    /// The current time, read once at the edge and passed into core.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::Utc::now()
    }

    /// Prints `value` as pretty JSON on stdout.
    pub fn print_json<T: serde::Serialize>(&self, value: &T) -> Result<()> {
        println!("{}", serde_json::to_string_pretty(value)?);
        Ok(())
    }
}

/// Reports a failed command on stderr and returns exit code 1.
pub fn report_failure(error: &anyhow::Error) -> ExitCode {
    let report = ambry_core::report(error.as_ref());
    eprintln!("error: {}", report.message);
    if std::env::args().any(|a| a == "--json") {
        eprintln!("{}", serde_json::to_string(&report).unwrap_or_default());
    }
    // DESIGN §9: a usage error exits 2, as clap's own do; every other failure 1.
    if report.code == ambry_core::Code::Usage.as_str() {
        ExitCode::from(2)
    } else {
        ExitCode::from(1)
    }
}
