//! The command line agents run to reach Ambry, and recognizing it in their files.
//!
//! Owns: `AmbryCommand` (the binary's path, and the home when it is not the default, written
//! as `--home DIR` into both the hook and the MCP server so they always use one store), and
//! telling whether a command found in an agent's file is Ambry's, wherever its binary lives
//! and whichever home it names.
//! Deliberately does not: decide which binary or home (the caller resolves both).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Agent;

/// How agents should start Ambry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AmbryCommand {
    /// The binary: an absolute path, else `ambry` on PATH.
    pub program: String,
    /// The Ambry home to pin, `None` for the default (`~/.ambry`), which needs no flag.
    pub home: Option<PathBuf>,
}

impl AmbryCommand {
    pub fn new(program: impl Into<String>) -> AmbryCommand {
        AmbryCommand {
            program: program.into(),
            home: None,
        }
    }

    pub fn with_home(mut self, home: Option<PathBuf>) -> AmbryCommand {
        self.home = home;
        self
    }

    /// The hook command line for an agent, quoted for a shell where a path needs it.
    pub fn hook(&self, agent: Agent) -> String {
        let mut words = vec![quote(&self.program)];
        if let Some(home) = &self.home {
            words.push("--home".into());
            words.push(quote(&home.display().to_string()));
        }
        words.push(format!("compose --hook {}", agent.as_str()));
        words.join(" ")
    }

    /// The MCP server's arguments: `--home DIR mcp`, or `mcp` for the default home.
    pub fn server_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(home) = &self.home {
            args.push("--home".into());
            args.push(home.display().to_string());
        }
        args.push("mcp".into());
        args
    }
}

fn quote(word: &str) -> String {
    shlex::try_quote(word)
        .map(|q| q.into_owned())
        .unwrap_or_else(|_| word.to_string())
}

/// True when `program` is an `ambry` binary and `args`, without a `--home DIR`, are `tail`.
pub fn is_ambry(program: &str, args: &[String], tail: &[&str]) -> bool {
    let base = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if base != "ambry" {
        return false;
    }
    let mut rest = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--home" {
            if words.next().is_none() {
                return false;
            }
        } else if !word.starts_with("--home=") {
            rest.push(word.as_str());
        }
    }
    rest == tail
}

/// True when the shell command line runs `ambry [--home DIR] compose --hook <agent>`.
pub fn is_ambry_hook(command: &str, agent: Agent) -> bool {
    let Some(words) = shlex::split(command) else {
        return false;
    };
    let [program, args @ ..] = words.as_slice() else {
        return false;
    };
    is_ambry(program, args, &["compose", "--hook", agent.as_str()])
}

/// The binary a command line starts (its first word).
pub fn program_of(command: &str) -> Option<String> {
    shlex::split(command).and_then(|w| w.into_iter().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_goes_into_hook_and_server_alike() {
        let plain = AmbryCommand::new("/opt/my tools/ambry");
        assert_eq!(
            plain.hook(Agent::Claude),
            "'/opt/my tools/ambry' compose --hook claude"
        );
        assert_eq!(plain.server_args(), ["mcp"]);
        let pinned = plain.with_home(Some("/data/my memory".into()));
        assert_eq!(
            pinned.hook(Agent::Codex),
            "'/opt/my tools/ambry' --home '/data/my memory' compose --hook codex"
        );
        assert_eq!(pinned.server_args(), ["--home", "/data/my memory", "mcp"]);
        assert!(is_ambry_hook(&pinned.hook(Agent::Codex), Agent::Codex));
    }

    #[test]
    fn recognizes_the_hook_wherever_the_binary_lives() {
        assert!(is_ambry_hook("ambry compose --hook claude", Agent::Claude));
        assert!(is_ambry_hook(
            "/x/ambry --home=/h compose --hook codex",
            Agent::Codex
        ));
        assert!(!is_ambry_hook("ambry compose --hook claude", Agent::Codex));
        assert!(!is_ambry_hook(
            "ambry-other compose --hook claude",
            Agent::Claude
        ));
        assert!(!is_ambry_hook(
            "ambry compose --hook claude --top-k 3",
            Agent::Claude
        ));
        assert!(!is_ambry_hook("ambry --home", Agent::Claude));
    }
}
