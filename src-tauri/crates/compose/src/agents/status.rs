//! Is an agent connected? What `ambry doctor` and the app's Settings show.
//!
//! Owns: reading each agent's files (never writing them) into a connection status — hook
//! installed, MCP server registered, the binary they point at present, the agent's own program
//! found (without it a connection is only configured) — and the doctor checks
//! made from it, including Codex's trust verdict on each of Ambry's hooks (trusted, untrusted,
//! changed since trusted, with how to trust it) and the warning that Claude Code deletes old
//! transcripts (`cleanupPeriodDays`) while Ambry keeps them.
//! Deliberately does not: fix anything; each problem names the command that does.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::ambry_command::program_of;
use super::codex_trust::{self, HookTrust, Trust};
use super::json_edit::JsonText;
use super::{claude_config, codex_config, config_file, hooks_json, Agent, AgentEnv};
use ambry_store::doctor::Check;

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
    /// Some of Ambry's hooks are there, not all (`missing` names the events).
    Incomplete {
        command: String,
        missing: Vec<String>,
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
    /// Codex only: whether Codex runs each of Ambry's hooks.
    pub hooks_trust: Vec<HookTrust>,
    /// The agent's own program (`claude`, `codex`) and whether it is found here: a connection
    /// is only configured while nothing here can run the agent.
    pub program: &'static str,
    pub program_found: bool,
    /// Worth knowing, nothing to fix (Claude Code deletes transcripts after N days).
    pub notes: Vec<String>,
    /// Something that stops the connection working (Codex's hooks switched off).
    pub warnings: Vec<String>,
}

impl AgentConnection {
    pub fn connected(&self) -> bool {
        self.hook.is_installed() && self.mcp.is_installed()
    }
}

/// Reads the agent's files into its connection status.
pub fn connection(agent: Agent, env: &AgentEnv) -> AgentConnection {
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let (hook_file, mcp_file, dir) = match agent {
        Agent::Claude => (env.claude_settings(), env.claude_state(), env.claude_dir()),
        Agent::Codex => (env.codex_hooks(), env.codex_config(), env.codex_dir()),
    };
    let mut found = Vec::new();
    let hook = match read_json(&hook_file) {
        Err(reason) => PartState::Unreadable { reason },
        Ok(doc) => {
            if agent == Agent::Claude {
                if let Some(days) = doc
                    .get(&[super::json_edit::Step::Key("cleanupPeriodDays")])
                    .and_then(serde_json::Value::as_i64)
                {
                    notes.push(cleanup_note(days));
                }
            }
            found = hooks_json::find(&doc, agent);
            let missing: Vec<String> = hooks_json::EVENTS
                .iter()
                .filter(|e| !found.iter().any(|h| h.event == **e))
                .map(|e| e.to_string())
                .collect();
            match (found.first(), missing.is_empty()) {
                (Some(first), false) => PartState::Incomplete {
                    command: first.command.clone(),
                    missing,
                },
                (first, _) => part(first.map(|h| h.command.clone()), program_of),
            }
        }
    };
    let mut hooks_trust = Vec::new();
    let mcp = match agent {
        Agent::Claude => match read_json(&mcp_file) {
            Err(reason) => PartState::Unreadable { reason },
            Ok(doc) => part(
                claude_config::find_server(&doc.value).map(|(c, _)| c),
                |c| Some(c.to_string()),
            ),
        },
        Agent::Codex => match config_file::read(&mcp_file)
            .and_then(|t| codex_config::parse(&mcp_file, t.as_deref()))
        {
            Err(e) => PartState::Unreadable {
                reason: e.to_string(),
            },
            Ok(doc) => {
                if codex_config::hooks_switch(&doc) == Some(false) {
                    warnings.push("hooks are switched off in config.toml ([features]); Codex will not run the compose hook".into());
                }
                hooks_trust = codex_trust::trust_of(&hook_file, &found, &doc);
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
        hooks_trust,
        program: agent.program(),
        program_found: env.find_program(agent.program()).is_some(),
        notes,
        warnings,
    }
}

fn cleanup_note(days: i64) -> String {
    format!(
        "Claude Code deletes transcripts older than {days} days (cleanupPeriodDays{}); Ambry's session index keeps them searchable after that",
        if days == 30 { ", default" } else { "" }
    )
}

fn read_json(path: &Path) -> Result<JsonText, String> {
    let text = config_file::read(path).map_err(|e| e.to_string())?;
    JsonText::parse(path, text.as_deref()).map_err(|e| e.to_string())
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
        let check = if c.connected() && !c.program_found {
            Check::warn(
                area,
                format!(
                    "configured ({parts}); `{}` not found on PATH, so nothing here runs {}: install it, or start Ambry where your shell's PATH applies",
                    c.program, c.name
                ),
            )
        } else if c.connected() {
            Check::ok(area, format!("connected ({parts})"))
        } else if matches!(c.hook, PartState::Missing) && matches!(c.mcp, PartState::Missing) {
            let why = if c.present {
                "not connected"
            } else {
                "not installed here"
            };
            Check::off(area, format!("{why}; `ambry connect {agent}` connects it"))
        } else {
            Check::warn(
                area,
                format!("partly connected ({parts}); run `ambry connect {agent}` again"),
            )
        };
        checks.push(check);
        for hook in &c.hooks_trust {
            let line = format!("{} hook: {}", hook.event, hook.trust.describe());
            checks.push(match hook.trust {
                Trust::Trusted => Check::ok(area, line),
                _ => Check::warn(area, format!("{line}; {}", codex_trust::HOW_TO_TRUST)),
            });
        }
        if c.present || c.connected() {
            checks.extend(c.warnings.iter().map(|n| Check::warn(area, n.clone())));
            // A fact about the agent, not a fault: it never raises the overall status.
            checks.extend(c.notes.iter().map(|n| Check::info(area, n.clone())));
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
        PartState::Incomplete { missing, .. } => format!("{} missing", missing.join(" and ")),
        PartState::Missing => "missing".into(),
        PartState::Unreadable { reason } => format!("unreadable: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ambry_store::doctor::{overall, Status};

    #[test]
    fn an_agent_left_unconnected_is_off_and_worsens_no_status() {
        let tmp = tempfile::tempdir().unwrap();
        let env = AgentEnv::new(tmp.path().to_path_buf(), None, None);
        let checks = agent_checks(&env);
        assert_eq!(checks.len(), 2, "{checks:?}");
        for check in &checks {
            assert_eq!(check.status, Status::Off, "{check:?}");
            assert!(check.detail.starts_with("not "), "{check:?}");
        }
        assert_eq!(overall(&checks), Status::Ok);
    }

    #[test]
    fn claude_codes_transcript_policy_is_a_note_that_worsens_no_status() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let env = AgentEnv::new(home, None, None);
        let checks = agent_checks(&env);
        let note = checks
            .iter()
            .find(|c| c.detail.contains("deletes transcripts older than 30 days"))
            .expect("the cleanup note");
        assert_eq!(note.status, Status::Info, "{note:?}");
        assert_eq!(overall(&checks), Status::Ok, "{checks:?}");
    }
}
