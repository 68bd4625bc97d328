//! Is an agent connected? What `ambry doctor` and the app's Settings show.
//!
//! Owns: reading each agent's files (never writing them) into a connection status — hook
//! installed, MCP server registered, the binary they point at present — and the doctor checks
//! made from it, including the warning that Claude Code deletes old transcripts
//! (`cleanupPeriodDays`) while Ambry keeps them.
//! Deliberately does not: fix anything; each problem names the command that does.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{
    claude_config, codex_config, config_file, hooks_json, json_doc::JsonDoc, Agent, AgentEnv,
};
use crate::doctor::Check;

/// Codex skips a user hook until the person has reviewed and trusted that exact definition
/// (its hash is kept in Codex's own config); Ambry cannot, and should not, do that for them.
pub const CODEX_TRUST_NOTE: &str =
    "Codex runs a new or changed hook only after you trust it: in Codex, type /hooks and trust `compose --hook codex`";

/// The state of one part (hook or MCP server) of a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum PartState {
    /// Present, and the program it runs exists.
    Installed {
        command: String,
    },
    /// Present, but the program it runs is not there (a moved or deleted binary).
    BrokenBinary {
        command: String,
        program: String,
    },
    Missing,
    /// The file could not be read or parsed; `reason` says why.
    Unreadable {
        reason: String,
    },
}

impl PartState {
    pub fn is_installed(&self) -> bool {
        matches!(self, PartState::Installed { .. })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct AgentConnection {
    pub agent: Agent,
    pub name: &'static str,
    /// Whether the agent seems installed here (its configuration directory exists).
    pub present: bool,
    pub hook: PartState,
    pub mcp: PartState,
    pub hook_file: PathBuf,
    pub mcp_file: PathBuf,
    /// Things the person should know (hooks switched off, transcripts deleted after N days).
    pub notes: Vec<String>,
}

impl AgentConnection {
    pub fn connected(&self) -> bool {
        self.hook.is_installed() && self.mcp.is_installed()
    }
}

/// Reads the agent's files into its connection status.
pub fn connection(agent: Agent, env: &AgentEnv) -> AgentConnection {
    let mut notes = Vec::new();
    let (hook_file, mcp_file, dir) = match agent {
        Agent::Claude => (env.claude_settings(), env.claude_state(), env.claude_dir()),
        Agent::Codex => (env.codex_hooks(), env.codex_config(), env.codex_dir()),
    };
    let hook = match read_json(&hook_file) {
        Err(reason) => PartState::Unreadable { reason },
        Ok(root) => {
            if agent == Agent::Claude {
                if let Some(days) = root
                    .get("cleanupPeriodDays")
                    .and_then(serde_json::Value::as_i64)
                {
                    notes.push(cleanup_note(days));
                }
            }
            part(hooks_json::find(&root, agent.as_str()), |c| {
                shlex::split(c).and_then(|w| w.into_iter().next())
            })
        }
    };
    let mcp = match agent {
        Agent::Claude => match read_json(&mcp_file) {
            Err(reason) => PartState::Unreadable { reason },
            Ok(root) => part(claude_config::find_server(&root).map(|(c, _)| c), |c| {
                Some(c.to_string())
            }),
        },
        Agent::Codex => match config_file::read(&mcp_file)
            .and_then(|t| codex_config::parse(&mcp_file, t.as_deref()))
        {
            Err(e) => PartState::Unreadable {
                reason: e.to_string(),
            },
            Ok(doc) => {
                if codex_config::hooks_switch(&doc) == Some(false) {
                    notes.push("hooks are switched off in config.toml ([features]); Codex will not run the compose hook".into());
                } else if hook.is_installed() {
                    notes.push(CODEX_TRUST_NOTE.into());
                }
                part(codex_config::find_server(&doc).map(|(c, _)| c), |c| {
                    Some(c.to_string())
                })
            }
        },
    };
    if agent == Agent::Claude
        && !matches!(hook, PartState::Unreadable { .. })
        && !notes.iter().any(|n| n.contains("cleanupPeriodDays"))
    {
        notes.push(cleanup_note(30));
    }
    AgentConnection {
        agent,
        name: agent.display_name(),
        present: dir.is_dir(),
        hook,
        mcp,
        hook_file,
        mcp_file,
        notes,
    }
}

fn cleanup_note(days: i64) -> String {
    format!(
        "Claude Code deletes transcripts older than {days} days (cleanupPeriodDays{}); Ambry's session index keeps them searchable after that",
        if days == 30 { ", default" } else { "" }
    )
}

fn read_json(path: &Path) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let text = config_file::read(path).map_err(|e| e.to_string())?;
    JsonDoc::parse(path, text.as_deref())
        .map(|d| d.root)
        .map_err(|e| e.to_string())
}

fn part(command: Option<String>, program_of: impl Fn(&str) -> Option<String>) -> PartState {
    let Some(command) = command else {
        return PartState::Missing;
    };
    let program = program_of(&command).unwrap_or_default();
    if program_exists(&program) {
        PartState::Installed { command }
    } else {
        PartState::BrokenBinary { command, program }
    }
}

/// An absolute path must exist; a bare name must be on PATH.
fn program_exists(program: &str) -> bool {
    let path = Path::new(program);
    if path.is_absolute() {
        return path.is_file();
    }
    if program.contains('/') || program.is_empty() {
        return false;
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// One doctor line per agent (plus its notes).
pub fn agent_checks(env: &AgentEnv) -> Vec<Check> {
    let mut checks = Vec::new();
    for agent in Agent::ALL {
        let c = connection(agent, env);
        let area = match agent {
            Agent::Claude => "claude code",
            Agent::Codex => "codex",
        };
        let parts = format!(
            "hook: {}; MCP server: {}",
            describe(&c.hook),
            describe(&c.mcp)
        );
        let check = if c.connected() {
            Check::ok(area, format!("connected ({parts})"))
        } else if matches!(c.hook, PartState::Missing) && matches!(c.mcp, PartState::Missing) {
            let why = if c.present {
                "not connected"
            } else {
                "not installed here"
            };
            Check::ok(area, format!("{why}; `ambry connect {agent}` connects it"))
        } else {
            Check::warn(
                area,
                format!("partly connected ({parts}); run `ambry connect {agent}` again"),
            )
        };
        checks.push(check);
        if c.present || c.connected() {
            checks.extend(c.notes.iter().map(|n| Check::warn(area, n.clone())));
        }
    }
    checks
}

fn describe(state: &PartState) -> String {
    match state {
        PartState::Installed { .. } => "installed".into(),
        PartState::BrokenBinary { program, .. } => {
            format!("points at {program}, which does not exist")
        }
        PartState::Missing => "missing".into(),
        PartState::Unreadable { reason } => format!("unreadable: {reason}"),
    }
}
