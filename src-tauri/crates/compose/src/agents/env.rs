//! Which agent, and where it keeps its files.
//!
//! Owns: `Agent` and `AgentEnv`, the resolved locations (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, the
//! user's home) that every agent file path derives from, and resolving `CODEX_HOME` as Codex
//! does: to its real absolute path (links and a relative path resolved; Codex 0.171
//! canonicalizes it and keys its hook trust by the real path of `hooks.json`, so a trust entry
//! under the path as given is one Codex never finds), and finding an agent's own program in the
//! search path the caller read.
//! Deliberately does not: read the environment; the caller passes the values in.

use std::path::{Path, PathBuf};

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Codex,
}

impl Agent {
    pub const ALL: [Agent; 2] = [Agent::Claude, Agent::Codex];

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }

    /// The agent's own command-line program, as its installers name it.
    pub fn program(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }

    /// The name a person knows the agent by.
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
        }
    }

    pub fn parse(text: &str) -> Option<Agent> {
        match text.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" => Some(Agent::Claude),
            "codex" => Some(Agent::Codex),
            _ => None,
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The agent-related locations of one machine, resolved once at the edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentEnv {
    /// The person's home directory.
    pub home: PathBuf,
    /// `CLAUDE_CONFIG_DIR`, when set and non-empty.
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME`, when set and non-empty, resolved as Codex resolves it ([`AgentEnv::new`]).
    pub codex_home: Option<PathBuf>,
    /// Where a program named without a path is looked for (`PATH` as the caller read it; empty
    /// until [`AgentEnv::with_search_path`] sets it).
    #[serde(skip)]
    pub search_path: Vec<PathBuf>,
}

impl AgentEnv {
    pub fn new(
        home: PathBuf,
        claude_config_dir: Option<PathBuf>,
        codex_home: Option<PathBuf>,
    ) -> AgentEnv {
        let non_empty = |p: Option<PathBuf>| p.filter(|p| !p.as_os_str().is_empty());
        AgentEnv {
            home,
            claude_config_dir: non_empty(claude_config_dir),
            codex_home: non_empty(codex_home).map(|p| real_path(&p)),
            search_path: Vec::new(),
        }
    }

    /// The directories of `path` (a `PATH` value) become where programs are looked for.
    pub fn with_search_path(mut self, path: Option<&str>) -> AgentEnv {
        self.search_path = path
            .map(|p| {
                std::env::split_paths(p)
                    .filter(|d| d.is_absolute())
                    .collect()
            })
            .unwrap_or_default();
        self
    }

    /// Where `program` is: a path as given (it must be a file), a bare name in the search path,
    /// or in `~/.local/bin`, where the agents' own installers put it (a desktop session's
    /// `PATH` often lacks it, though the person's shell has it).
    pub fn find_program(&self, program: &str) -> Option<PathBuf> {
        let path = Path::new(program);
        if program.contains('/') {
            return (path.is_absolute() && path.is_file()).then(|| path.to_path_buf());
        }
        if program.is_empty() {
            return None;
        }
        let installed = self.home.join(".local/bin");
        self.search_path
            .iter()
            .cloned()
            .chain(installed.is_absolute().then_some(installed))
            .map(|dir| dir.join(program))
            .find(|candidate| is_executable(candidate))
    }

    /// Claude Code's configuration directory: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub fn claude_dir(&self) -> PathBuf {
        self.claude_config_dir
            .clone()
            .unwrap_or_else(|| self.home.join(".claude"))
    }

    /// Claude Code's user settings (hooks, `cleanupPeriodDays`).
    pub fn claude_settings(&self) -> PathBuf {
        self.claude_dir().join("settings.json")
    }

    /// Claude Code's user state file, where user-wide MCP servers live: inside
    /// `$CLAUDE_CONFIG_DIR` when set, else `~/.claude.json` (beside, not inside, `~/.claude`).
    pub fn claude_state(&self) -> PathBuf {
        match &self.claude_config_dir {
            Some(dir) => dir.join(".claude.json"),
            None => self.home.join(".claude.json"),
        }
    }

    /// Claude Code's per-project directories (transcripts and auto-memory).
    pub fn claude_projects(&self) -> PathBuf {
        self.claude_dir().join("projects")
    }

    /// Codex's home: `$CODEX_HOME`, else `~/.codex`.
    pub fn codex_dir(&self) -> PathBuf {
        self.codex_home
            .clone()
            .unwrap_or_else(|| self.home.join(".codex"))
    }

    pub fn codex_config(&self) -> PathBuf {
        self.codex_dir().join("config.toml")
    }

    /// Codex's user hooks file, beside config.toml.
    pub fn codex_hooks(&self) -> PathBuf {
        self.codex_dir().join("hooks.json")
    }

    pub fn codex_memories(&self) -> PathBuf {
        self.codex_dir().join("memories")
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `path` as `canonicalize` gives it (absolute, no links, no `.` or `..`), as Codex resolves
/// `CODEX_HOME`. A path that does not exist yet (connect may create it) is its nearest existing
/// ancestor resolved, the rest appended; one that cannot be resolved at all is made absolute.
fn real_path(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    for ancestor in absolute.ancestors().skip(1) {
        if let Ok(real) = ancestor.canonicalize() {
            let rest = absolute
                .strip_prefix(ancestor)
                .expect("an ancestor is a prefix");
            return real.join(rest);
        }
    }
    absolute
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn claude_config_dir_moves_both_files() {
        let env = AgentEnv::new("/u".into(), None, Some("".into()));
        assert_eq!(env.claude_settings(), Path::new("/u/.claude/settings.json"));
        assert_eq!(env.claude_state(), Path::new("/u/.claude.json"));
        assert_eq!(
            env.codex_config(),
            Path::new("/u/.codex/config.toml"),
            "an empty CODEX_HOME is no override"
        );
        let env = AgentEnv::new("/u".into(), Some("/c".into()), Some("/x".into()));
        assert_eq!(env.claude_settings(), Path::new("/c/settings.json"));
        assert_eq!(env.claude_state(), Path::new("/c/.claude.json"));
        assert_eq!(env.codex_hooks(), Path::new("/x/hooks.json"));
    }

    #[test]
    fn a_program_is_found_in_the_search_path_or_where_installers_put_it() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let (bin, home) = (tmp.path().join("bin"), tmp.path().join("home"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(home.join(".local/bin")).unwrap();
        let make = |path: &Path| {
            std::fs::write(path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        make(&bin.join("codex"));
        make(&home.join(".local/bin/claude"));
        std::fs::write(bin.join("not-runnable"), "").unwrap();
        let env = AgentEnv::new(home.clone(), None, None);
        assert_eq!(env.find_program("codex"), None, "no search path yet");
        let env = env.with_search_path(Some(format!("relative:{}", bin.display()).as_str()));
        assert_eq!(env.find_program("codex"), Some(bin.join("codex")));
        assert_eq!(
            env.find_program("claude"),
            Some(home.join(".local/bin/claude"))
        );
        assert_eq!(env.find_program("not-runnable"), None);
        assert_eq!(env.find_program("gemini"), None);
        let absolute = bin.join("codex").display().to_string();
        assert_eq!(env.find_program(&absolute), Some(bin.join("codex")));
        assert_eq!(
            env.find_program("bin/codex"),
            None,
            "a relative path means nothing here"
        );
    }

    #[test]
    fn codex_home_is_its_real_path_even_before_it_exists() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, tmp.path().join("link")).unwrap();
        let real = real.canonicalize().unwrap();
        let env = AgentEnv::new("/u".into(), None, Some(tmp.path().join("link")));
        assert_eq!(env.codex_hooks(), real.join("hooks.json"));
        let env = AgentEnv::new("/u".into(), None, Some(tmp.path().join("link/not-yet")));
        assert_eq!(env.codex_config(), real.join("not-yet/config.toml"));
    }
}
