//! One hermetic machine for a real-client test: a temp HOME with Claude Code's and Codex's
//! configuration directories, an Ambry home (the default `~/.ambry` or a chosen one), a project
//! folder, the model API mock, and the command lines of `ambry`, `claude` and `codex` with an
//! environment built from nothing (no inherited keys, telemetry and updates off, any request
//! beyond loopback sent to a dead proxy).
//!
//! Owns: finding the pinned clients (`AMBRY_AGENT_CLIENTS`, else the setup cache; missing is a
//! failure under `CI`), the environment, Codex's mock provider config, and one lock so the
//! real-client tests run one at a time (each starts Node and a native binary on two cores).
//! Deliberately does not: assert anything about Ambry.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;
use tempfile::TempDir;

use super::mock_api::MockApi;
use super::process::{self, Finished};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Pinned client versions; `scripts/setup.sh --for test` installs exactly these.
pub const CLAUDE_VERSION: &str = "2.1.197";
pub const CODEX_VERSION: &str = "0.169.0";

/// Where the clients are installed (`node_modules/.bin/{claude,codex}` below it).
fn clients_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("AMBRY_AGENT_CLIENTS").filter(|d| !d.is_empty()) {
        return dir.into();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"));
    cache.join("ambry/agent-clients")
}

/// The installed client binary. A missing client fails the test on every machine, naming what
/// to run, so the suite cannot pass by not running these.
pub fn client(name: &str) -> PathBuf {
    let bin = clients_dir().join("node_modules/.bin").join(name);
    if bin.exists() {
        return bin;
    }
    panic!(
        "the real {name} client is missing at {}: run `scripts/setup.sh --for test` (it installs the \
         pinned Claude Code and Codex from npm), or set AMBRY_AGENT_CLIENTS to where they are \
         installed; `scripts/test.sh` does both",
        bin.display()
    )
}

pub struct World {
    root: TempDir,
    pub api: MockApi,
    claude_bin: PathBuf,
    codex_bin: PathBuf,
    /// `Some` when the test uses a non-default Ambry home; `None` means the default
    /// `$HOME/.ambry`.
    pub ambry_home: Option<PathBuf>,
    /// How the non-default home is given: `AMBRY_HOME` in every process's environment, or
    /// only `--home` on `ambry`'s own command lines (the clients then know it only from what
    /// `connect` wrote).
    home_by_flag: bool,
    runs: std::cell::Cell<u32>,
    _serial: MutexGuard<'static, ()>,
}

impl World {
    /// A world with both clients (a missing one fails the test, saying what to run).
    pub fn new() -> World {
        let claude_bin = client("claude");
        let codex_bin = client("codex");
        let serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let root = tempfile::tempdir().unwrap();
        for dir in [
            "home",
            "home/.claude",
            "home/.codex",
            "project",
            "tmp",
            "logs",
        ] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let world = World {
            root,
            api: MockApi::start(),
            claude_bin,
            codex_bin,
            ambry_home: None,
            home_by_flag: false,
            runs: std::cell::Cell::new(0),
            _serial: serial,
        };
        world.write_codex_provider();
        world
    }

    /// Uses `<world>/name` as the Ambry home instead of `$HOME/.ambry`: set as `AMBRY_HOME` for
    /// every process, or (`by_flag`) passed only as `ambry --home`.
    pub fn with_ambry_home(mut self, name: &str, by_flag: bool) -> World {
        let dir = self.root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        self.ambry_home = Some(dir);
        self.home_by_flag = by_flag;
        self
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }
    pub fn claude_dir(&self) -> PathBuf {
        self.home().join(".claude")
    }
    pub fn codex_dir(&self) -> PathBuf {
        self.home().join(".codex")
    }
    /// The project the agents work in (a plain folder: Ambry keys it by its path).
    pub fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }
    pub fn logs(&self) -> PathBuf {
        self.root.path().join("logs")
    }
    /// The Ambry home every process of this world uses.
    pub fn store(&self) -> PathBuf {
        self.ambry_home
            .clone()
            .unwrap_or_else(|| self.home().join(".ambry"))
    }

    fn label(&self, what: &str) -> String {
        let n = self.runs.get() + 1;
        self.runs.set(n);
        format!("{n:02}-{what}")
    }

    /// A command with this world's environment and nothing inherited but PATH.
    fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let loopback_only = "http://127.0.0.1:9";
        cmd.env_clear()
            .current_dir(self.project())
            .env("PATH", path)
            .env("HOME", self.home())
            .env("USER", "tester")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb")
            .env("TMPDIR", self.root.path().join("tmp"))
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("XDG_CACHE_HOME", self.home().join(".cache"))
            .env("XDG_DATA_HOME", self.home().join(".local/share"))
            .env("CLAUDE_CONFIG_DIR", self.claude_dir())
            .env("CODEX_HOME", self.codex_dir())
            // Anything not for the mock goes to a port where nothing listens.
            .env("HTTPS_PROXY", loopback_only)
            .env("HTTP_PROXY", loopback_only)
            .env("https_proxy", loopback_only)
            .env("http_proxy", loopback_only)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("ANTHROPIC_BASE_URL", self.api.base_url())
            .env("ANTHROPIC_API_KEY", "sk-test")
            .env("MOCK_API_KEY", "sk-test")
            // Hooks compose in-process and never leave a service behind.
            .env("AMBRY_NO_SERVICE", "1")
            .env("AMBRY_SERVICE_AUTOSTART", "0");
        match &self.ambry_home {
            Some(home) if !self.home_by_flag => {
                cmd.env("AMBRY_HOME", home);
            }
            _ => {}
        }
        cmd
    }

    /// The `ambry` under test, run to its end.
    pub fn ambry(&self, args: &[&str]) -> Finished {
        let mut cmd = self.command(&assert_cmd::cargo::cargo_bin("ambry"));
        if let (Some(home), true) = (&self.ambry_home, self.home_by_flag) {
            cmd.arg("--home").arg(home);
        }
        cmd.args(args);
        process::run(cmd, &self.logs(), &self.label("ambry"))
    }

    pub fn claude_command(&self, args: &[&str]) -> Command {
        let mut cmd = self.command(&self.claude_bin);
        cmd.args(args);
        cmd
    }

    pub fn claude(&self, args: &[&str]) -> Finished {
        let cmd = self.claude_command(args);
        process::run(cmd, &self.logs(), &self.label("claude"))
    }

    /// `claude -p PROMPT` headless, streaming JSON events, with `extra` flags.
    pub fn claude_prompt(&self, prompt: &str, extra: &[&str]) -> Finished {
        let mut args = vec!["-p", prompt, "--output-format", "stream-json", "--verbose"];
        args.extend_from_slice(extra);
        self.claude(&args)
    }

    pub fn codex(&self, args: &[&str]) -> Finished {
        let mut cmd = self.command(&self.codex_bin);
        cmd.args(args);
        process::run(cmd, &self.logs(), &self.label("codex"))
    }

    /// `codex exec` headless in the project with `extra` flags before the prompt.
    pub fn codex_exec(&self, prompt: &str, extra: &[&str]) -> Finished {
        let mut args = vec!["exec", "--skip-git-repo-check", "--json"];
        args.extend_from_slice(extra);
        args.push(prompt);
        self.codex(&args)
    }

    pub fn session_command(&self, program: &str, args: &[&str]) -> Command {
        let bin = match program {
            "claude" => &self.claude_bin,
            _ => &self.codex_bin,
        };
        let mut cmd = self.command(bin);
        cmd.args(args);
        cmd
    }

    /// The installed client binary (`claude` or `codex`).
    pub fn client_bin(&self, program: &str) -> &Path {
        match program {
            "claude" => &self.claude_bin,
            _ => &self.codex_bin,
        }
    }

    pub fn new_label(&self, what: &str) -> String {
        self.label(what)
    }

    /// Codex's model provider: the mock, Responses API, no update check, no analytics.
    fn write_codex_provider(&self) {
        let config = format!(
            "model = \"gpt-5.1-codex\"\nmodel_provider = \"mock\"\ncheck_for_update_on_startup = false\n\n\
             [model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n\
             request_max_retries = 0\nstream_max_retries = 0\n\n[analytics]\nenabled = false\n",
            self.api.base_url()
        );
        std::fs::write(self.codex_dir().join("config.toml"), config).unwrap();
    }
}

impl Drop for World {
    /// With `AMBRY_REAL_CLIENTS_DUMP=DIR`, every request the clients sent goes to
    /// `DIR/<test>-<n>.jsonl`: the raw material for docs/agents.md and for debugging a failure.
    fn drop(&mut self) {
        let Some(dir) = std::env::var_os("AMBRY_REAL_CLIENTS_DUMP") else {
            return;
        };
        let test = std::thread::current()
            .name()
            .unwrap_or("test")
            .replace("::", "-");
        let mut lines = String::new();
        for r in self.api.requests() {
            let line = serde_json::json!({"method": r.method, "path": r.path, "body": r.body});
            lines.push_str(&format!("{line}\n"));
        }
        static WORLDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = WORLDS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(PathBuf::from(dir).join(format!("{test}-{n}.jsonl")), lines);
    }
}

/// The JSON lines of a client's `--json` / `stream-json` stdout.
pub fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
