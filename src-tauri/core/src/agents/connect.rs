//! `ambry connect` / `ambry disconnect`: the edits to an agent's files, planned then applied.
//!
//! Owns: computing every file's new text before anything is written (so a file that does not
//! parse stops the whole command with nothing touched), the human summary and unified diff of
//! each change, and applying: backup of the prior file, atomic replacement, and a check that the
//! file did not change between plan and apply.
//! Deliberately does not: know the JSON or TOML details (`hooks_json`, `claude_config`,
//! `codex_config`) or print anything.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{
    claude_config, codex_config, config_file, hooks_json, json_doc::JsonDoc, Agent, AgentEnv,
    AgentError,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Connect,
    Disconnect,
}

/// How agents should start Ambry: the running binary's absolute path, else `ambry` on PATH.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AmbryCommand {
    pub program: String,
}

impl AmbryCommand {
    pub fn new(program: impl Into<String>) -> AmbryCommand {
        AmbryCommand {
            program: program.into(),
        }
    }

    /// The hook command line for an agent, quoted for a shell when the path needs it.
    pub fn hook(&self, agent: Agent) -> String {
        let program = shlex::try_quote(&self.program)
            .map(|q| q.into_owned())
            .unwrap_or_else(|_| self.program.clone());
        format!("{program} compose --hook {}", agent.as_str())
    }
}

/// One file's planned edit; `after == before` means nothing to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedEdit {
    pub path: PathBuf,
    pub before: Option<String>,
    pub after: String,
    pub summary: Vec<String>,
}

impl PlannedEdit {
    pub fn changes(&self) -> bool {
        self.before.as_deref() != Some(self.after.as_str()) && !self.summary.is_empty()
    }
}

/// What happened (or, in a dry run, would happen) to one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    pub path: PathBuf,
    pub changed: bool,
    /// One line per thing added, re-pointed or removed.
    pub summary: Vec<String>,
    /// A unified diff of the file (empty when unchanged).
    pub diff: String,
    /// Where the prior file was copied; `None` in a dry run, for a new file, or when unchanged.
    pub backup: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ConnectReport {
    pub agent: Agent,
    pub action: Action,
    pub dry_run: bool,
    pub changed: bool,
    pub files: Vec<FileChange>,
    /// What the person still has to do in the agent itself for the change to take effect.
    pub notes: Vec<String>,
}

impl ConnectReport {
    /// Human text: each file's summary and diff, or that nothing needed to change.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for f in self.files.iter().filter(|f| f.changed) {
            out.push_str(&format!("{}:\n", f.path.display()));
            for line in &f.summary {
                out.push_str(&format!("  {line}\n"));
            }
            if let Some(b) = &f.backup {
                out.push_str(&format!("  backup: {}\n", b.display()));
            }
            out.push_str(&f.diff);
        }
        for note in &self.notes {
            out.push_str(&format!("Note: {note}\n"));
        }
        if !self.changed {
            out.push_str(&format!(
                "{} is already {}; nothing to change.\n",
                self.agent.display_name(),
                if self.action == Action::Connect {
                    "connected"
                } else {
                    "disconnected"
                }
            ));
        }
        out
    }
}

/// Computes every edit for `agent`; reads files, writes nothing.
pub fn plan(
    agent: Agent,
    action: Action,
    env: &AgentEnv,
    ambry: &AmbryCommand,
) -> Result<Vec<PlannedEdit>, AgentError> {
    match agent {
        Agent::Claude => Ok(vec![
            edit_json(&env.claude_settings(), |root, path| match action {
                Action::Connect => {
                    Ok(
                        hooks_json::install(root, path, "claude", &ambry.hook(agent))?
                            .into_iter()
                            .collect(),
                    )
                }
                Action::Disconnect => Ok(hooks_json::remove(root, "claude").into_iter().collect()),
            })?,
            edit_json(&env.claude_state(), |root, path| match action {
                Action::Connect => Ok(claude_config::install_server(root, path, &ambry.program)?
                    .into_iter()
                    .collect()),
                Action::Disconnect => Ok(claude_config::remove_server(root).into_iter().collect()),
            })?,
        ]),
        Agent::Codex => Ok(vec![
            edit_codex_config(&env.codex_config(), action, ambry)?,
            edit_json(&env.codex_hooks(), |root, path| match action {
                Action::Connect => {
                    Ok(
                        hooks_json::install(root, path, "codex", &ambry.hook(agent))?
                            .into_iter()
                            .collect(),
                    )
                }
                Action::Disconnect => Ok(hooks_json::remove(root, "codex").into_iter().collect()),
            })?,
        ]),
    }
}

/// Applies planned edits (or only describes them when `dry_run`).
pub fn apply(
    agent: Agent,
    action: Action,
    edits: Vec<PlannedEdit>,
    dry_run: bool,
    now: DateTime<Utc>,
) -> Result<ConnectReport, AgentError> {
    let mut files = Vec::new();
    for edit in edits {
        let changed = edit.changes();
        let diff = if changed {
            unified_diff(
                &edit.path,
                edit.before.as_deref().unwrap_or(""),
                &edit.after,
            )
        } else {
            String::new()
        };
        let mut backup = None;
        if changed && !dry_run {
            if config_file::read(&edit.path)? != edit.before {
                return Err(AgentError::ChangedUnderfoot {
                    path: edit.path.display().to_string(),
                });
            }
            if edit.before.is_some() {
                backup = Some(config_file::backup(&edit.path, now)?);
            }
            config_file::replace(&edit.path, &edit.after)?;
        }
        files.push(FileChange {
            path: edit.path,
            changed,
            summary: if changed { edit.summary } else { vec![] },
            diff,
            backup,
        });
    }
    let changed = files.iter().any(|f| f.changed);
    let notes = match (agent, action) {
        (Agent::Codex, Action::Connect) if changed => {
            vec![super::status::CODEX_TRUST_NOTE.to_string()]
        }
        _ => vec![],
    };
    Ok(ConnectReport {
        agent,
        action,
        dry_run,
        changed,
        files,
        notes,
    })
}

fn edit_json(
    path: &Path,
    edit: impl FnOnce(
        &mut serde_json::Map<String, serde_json::Value>,
        &str,
    ) -> Result<Vec<String>, AgentError>,
) -> Result<PlannedEdit, AgentError> {
    let before = config_file::read(path)?;
    let mut doc = JsonDoc::parse(path, before.as_deref())?;
    let summary = edit(&mut doc.root, &path.display().to_string())?;
    let after = if summary.is_empty() {
        before.clone().unwrap_or_default()
    } else {
        doc.render()
    };
    Ok(PlannedEdit {
        path: path.to_path_buf(),
        before,
        after,
        summary,
    })
}

fn edit_codex_config(
    path: &Path,
    action: Action,
    ambry: &AmbryCommand,
) -> Result<PlannedEdit, AgentError> {
    let before = config_file::read(path)?;
    let mut doc = codex_config::parse(path, before.as_deref())?;
    let shown = path.display().to_string();
    let summary: Vec<String> = match action {
        Action::Connect => codex_config::install_server(&mut doc, &shown, &ambry.program)?
            .into_iter()
            .collect(),
        Action::Disconnect => codex_config::remove_server(&mut doc)
            .into_iter()
            .chain(codex_config::remove_enabled_hooks(&mut doc))
            .collect(),
    };
    let after = if summary.is_empty() {
        before.clone().unwrap_or_default()
    } else {
        doc.to_string()
    };
    Ok(PlannedEdit {
        path: path.to_path_buf(),
        before,
        after,
        summary,
    })
}

fn unified_diff(path: &Path, before: &str, after: &str) -> String {
    let shown = path.display().to_string();
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(2)
        .header(&format!("{shown} (before)"), &format!("{shown} (after)"))
        .to_string()
}
