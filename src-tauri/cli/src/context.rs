//! What every command needs: the resolved home, the config, the cwd, the output mode.
//!
//! Owns: turning global flags and the process environment into core inputs, and printing a
//! failure (`error: …` on stderr; with `--json`, also `{"code","message"}` on stderr).
//! Deliberately does not: load anything a command may not need (config is loaded lazily).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use engram_core::config::Config;
use engram_core::EngramHome;

pub struct Context {
    pub home: EngramHome,
    pub cwd: PathBuf,
    pub json: bool,
    config: std::cell::OnceCell<Config>,
}

impl Context {
    pub fn from_flags(home: Option<PathBuf>, cwd: Option<PathBuf>, json: bool) -> Result<Self> {
        let home = EngramHome::resolve(
            home,
            std::env::var_os("ENGRAM_HOME").map(PathBuf::from),
            std::env::home_dir(),
        )
        .context("cannot find a home directory: pass --home DIR or set ENGRAM_HOME")?;
        if let Some(reason) = home.unusable_reason() {
            anyhow::bail!(reason);
        }
        let cwd = match cwd {
            Some(dir) => dir,
            None => std::env::current_dir().context("cannot read the current directory; pass --cwd DIR")?,
        };
        Ok(Self { home, cwd, json, config: std::cell::OnceCell::new() })
    }

    /// The configuration, loaded once; a bad file is an error naming key and line.
    pub fn config(&self) -> Result<&Config> {
        if let Some(c) = self.config.get() {
            return Ok(c);
        }
        let loaded = Config::load(&self.home.config_file())?;
        Ok(self.config.get_or_init(|| loaded))
    }

    /// The project the cwd belongs to (a git repository, else the directory itself).
    pub fn project(&self) -> Result<engram_core::project::Project> {
        engram_core::project::resolve(&self.cwd)
            .with_context(|| format!("cannot use {} as the working directory", self.cwd.display()))
    }

    /// The store for the user scope and, when the cwd resolves, the cwd's project.
    pub fn store(&self) -> engram_core::memory::Store {
        engram_core::memory::Store::new(self.home.clone(), self.project().ok())
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
    let code = error_code(error);
    let message = error_chain(error);
    eprintln!("error: {message}");
    if std::env::args().any(|a| a == "--json") {
        eprintln!("{}", serde_json::json!({ "code": code, "message": message }));
    }
    ExitCode::from(1)
}

/// The error and its causes, each said once: core errors already include their OS cause in
/// their message, so the chain would otherwise print it twice.
fn error_chain(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// The stable kind of a core error, when the chain holds one.
fn error_code(error: &anyhow::Error) -> &'static str {
    use engram_core::ErrorCode;
    for cause in error.chain() {
        if let Some(e) = cause.downcast_ref::<engram_core::config::ConfigError>() {
            return e.code();
        }
        if let Some(e) = cause.downcast_ref::<engram_core::memory::StoreError>() {
            return e.code();
        }
        if let Some(e) = cause.downcast_ref::<engram_core::project::ProjectError>() {
            return e.code();
        }
        if let Some(e) = cause.downcast_ref::<engram_core::embed::EmbedError>() {
            return e.code();
        }
        if let Some(e) = cause.downcast_ref::<engram_core::sessions::SessionError>() {
            return e.code();
        }
        if let Some(e) = cause.downcast_ref::<engram_core::compose_service::ServiceError>() {
            return e.code();
        }
    }
    "failed"
}
