//! `ambry connect` / `ambry disconnect`: the edits to an agent's files, planned then applied.
//!
//! Owns: computing every file's new text before anything is written (so a file that is a link,
//! read-only or does not parse stops the whole command with nothing touched and no backup), the
//! summary and compact diff of each change, Codex's trust verdict on the planned hooks (and,
//! with `--trust`, the trust entries Codex's own review writes), and applying: one backup of
//! each changed file (none when a disconnect only returns a file to the bytes its newest backup
//! already holds), atomic replacement, deleting a file connect created once it holds nothing
//! else, a check that no file changed between plan and apply, and the connect record.
//! Deliberately does not: know the JSON or TOML details (`hooks_json`, `claude_config`,
//! `codex_config`) or print anything.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::codex_trust::{self, HookTrust};
use super::json_edit::{Edited, JsonText};
use super::record::ConnectRecord;
use super::{
    claude_config, codex_config, config_file, hooks_json, Agent, AgentEnv, AgentError, AmbryCommand,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Connect,
    Disconnect,
}

/// What the person asked for besides the action itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConnectOptions {
    /// Codex: also write the trust entries for Ambry's hooks (shown in the diff).
    pub trust: bool,
}

/// One file's planned edit; `after == None` deletes a file connect created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedEdit {
    pub path: PathBuf,
    pub before: Option<String>,
    pub after: Option<String>,
    pub summary: Vec<String>,
    /// Containers this edit creates (recorded so disconnect removes exactly them).
    pub created: Vec<String>,
}

impl PlannedEdit {
    pub fn changes(&self) -> bool {
        self.before != self.after && !self.summary.is_empty()
    }
}

/// Everything connect or disconnect would do, before it is done.
#[derive(Debug, Clone)]
pub struct Plan {
    pub agent: Agent,
    pub action: Action,
    pub edits: Vec<PlannedEdit>,
    /// Codex's verdict on Ambry's hooks as they will be.
    pub trust: Vec<HookTrust>,
}

/// What happened (or, in a dry run, would happen) to one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    pub path: PathBuf,
    pub changed: bool,
    /// True when the file is (or would be) deleted: connect created it and it holds nothing else.
    pub removed: bool,
    /// One line per thing added, re-pointed or removed.
    pub summary: Vec<String>,
    /// A unified diff of only the changed lines and two lines around them (empty when unchanged).
    pub diff: String,
    /// Where the prior file was copied; `None` in a dry run, for a new file, when unchanged, or
    /// when a disconnect returns it to the bytes of its newest backup.
    pub backup: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ConnectReport {
    pub agent: Agent,
    pub action: Action,
    pub dry_run: bool,
    pub changed: bool,
    pub files: Vec<FileChange>,
    /// Codex only: whether Codex will run each of Ambry's hooks.
    pub trust: Vec<HookTrust>,
    /// What the person still has to do in the agent itself for the change to take effect.
    pub notes: Vec<String>,
}

impl ConnectReport {
    /// Human text: each file's summary and diff, trust, or that nothing needed to change.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for f in self.files.iter().filter(|f| f.changed) {
            out.push_str(&format!("{}:\n", f.path.display()));
            for line in &f.summary {
                out.push_str(&format!("  {line}\n"));
            }
            if f.removed {
                out.push_str(
                    "  (connect created this file; it holds nothing else now, so it goes)\n",
                );
            }
            if let Some(b) = &f.backup {
                out.push_str(&format!("  backup: {}\n", b.display()));
            }
            out.push_str(&f.diff);
        }
        for hook in &self.trust {
            out.push_str(&format!(
                "Codex {} hook: {}\n",
                hook.event,
                hook.trust.describe()
            ));
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

/// Refuses a file Ambry must not rewrite: a symbolic link, or one without write permission.
fn check_writable(path: &Path) -> Result<(), AgentError> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let shown = path.display().to_string();
    if meta.file_type().is_symlink() || !meta.is_file() {
        return Err(AgentError::NotARegularFile { path: shown });
    }
    if meta.permissions().readonly() {
        return Err(AgentError::ReadOnly { path: shown });
    }
    Ok(())
}

fn read(path: &Path) -> Result<Option<String>, AgentError> {
    check_writable(path)?;
    config_file::read(path)
}

/// One file's edit: its path and current text in, the edited text out.
type FileEdit<'a> = dyn Fn(&Path, Option<&str>) -> Result<Edited, AgentError> + 'a;

/// Computes every edit for `agent`; reads files, writes nothing.
pub fn plan(
    agent: Agent,
    action: Action,
    env: &AgentEnv,
    ambry: &AmbryCommand,
    options: ConnectOptions,
    record: &ConnectRecord,
) -> Result<Plan, AgentError> {
    let created = |p: &Path| record.get(p).map(|r| r.created.as_slice());
    let json_edit = |path: PathBuf, edit: &FileEdit<'_>| -> Result<PlannedEdit, AgentError> {
        let before = read(&path)?;
        let edited = edit(&path, before.as_deref())?;
        let after = if edited.summary.is_empty() {
            before.clone()
        } else {
            Some(edited.text)
        };
        Ok(finish(
            path,
            before,
            after,
            edited.summary,
            edited.created,
            record,
        ))
    };
    match agent {
        Agent::Claude => {
            let settings = env.claude_settings();
            let state = env.claude_state();
            let edits = match action {
                Action::Connect => vec![
                    json_edit(settings, &|p, t| {
                        hooks_json::install(p, t, agent, &ambry.hook(agent))
                    })?,
                    json_edit(state, &|p, t| claude_config::install_server(p, t, ambry))?,
                ],
                Action::Disconnect => vec![
                    json_edit(settings.clone(), &|p, t| {
                        hooks_json::remove(p, t, agent, created(&settings))
                    })?,
                    json_edit(state.clone(), &|p, t| {
                        claude_config::remove_server(p, t, created(&state))
                    })?,
                ],
            };
            Ok(Plan {
                agent,
                action,
                edits,
                trust: vec![],
            })
        }
        Agent::Codex => {
            let hooks_path = env.codex_hooks();
            let hooks_before = read(&hooks_path)?;
            let hooks = json_edit(hooks_path.clone(), &|p, t| match action {
                Action::Connect => hooks_json::install(p, t, agent, &ambry.hook(agent)),
                Action::Disconnect => hooks_json::remove(p, t, agent, created(&hooks_path)),
            })?;
            // Trust is judged on the hooks as they will be (connect) or as they were (disconnect).
            let judged_text = match action {
                Action::Connect => hooks.after.clone(),
                Action::Disconnect => hooks_before,
            };
            let judged = JsonText::parse(&hooks_path, judged_text.as_deref())?;
            let found = hooks_json::find(&judged, agent);
            let config = edit_codex_config(env, action, ambry, options, &found, record)?;
            let trust = match action {
                Action::Connect => {
                    let doc = codex_config::parse(&config.path, config.after.as_deref())?;
                    codex_trust::trust_of(&hooks_path, &found, &doc)
                }
                Action::Disconnect => vec![],
            };
            Ok(Plan {
                agent,
                action,
                edits: vec![config, hooks],
                trust,
            })
        }
    }
}

/// The planned edit, turning "back to nothing" into deleting a file connect created.
fn finish(
    path: PathBuf,
    before: Option<String>,
    after: Option<String>,
    summary: Vec<String>,
    created: Vec<String>,
    record: &ConnectRecord,
) -> PlannedEdit {
    let created_by_connect = record.get(&path).is_some_and(|r| r.created_file);
    let empty = after.as_deref().is_some_and(|text| {
        let t = text.trim();
        t.is_empty()
            || serde_json::from_str::<serde_json::Value>(t)
                .is_ok_and(|v| v == serde_json::json!({}))
    });
    let after = if created_by_connect && empty && !summary.is_empty() {
        None
    } else {
        after
    };
    PlannedEdit {
        path,
        before,
        after,
        summary,
        created,
    }
}

fn edit_codex_config(
    env: &AgentEnv,
    action: Action,
    ambry: &AmbryCommand,
    options: ConnectOptions,
    hooks: &[hooks_json::FoundHook],
    record: &ConnectRecord,
) -> Result<PlannedEdit, AgentError> {
    let path = env.codex_config();
    let hooks_file = env.codex_hooks();
    let before = read(&path)?;
    let mut doc = codex_config::parse(&path, before.as_deref())?;
    let shown = path.display().to_string();
    let mut summary: Vec<String> = Vec::new();
    match action {
        Action::Connect => {
            summary.extend(codex_config::install_server(&mut doc, &shown, ambry)?);
            if options.trust {
                for hook in hooks {
                    let key = codex_trust::key(&hooks_file, hook);
                    if codex_config::write_trust(&mut doc, &shown, &key, &codex_trust::hash(hook))?
                    {
                        summary.push(format!(
                            "trusted the {} hook for Codex ([hooks.state.\"{key}\"], as /hooks in Codex writes it)",
                            hook.event
                        ));
                    }
                }
            }
        }
        Action::Disconnect => {
            summary.extend(codex_config::remove_server(&mut doc));
            summary.extend(codex_config::remove_enabled_hooks(&mut doc));
            for hook in hooks {
                let key = codex_trust::key(&hooks_file, hook);
                if codex_config::remove_trust(&mut doc, &key, &codex_trust::hash(hook)) {
                    summary.push(format!(
                        "removed Codex's trust entry for the {} hook",
                        hook.event
                    ));
                }
            }
        }
    }
    let after = if summary.is_empty() {
        before.clone()
    } else {
        Some(doc.to_string())
    };
    Ok(finish(path, before, after, summary, vec![], record))
}

/// Applies a plan (or only describes it when `dry_run`), updating the connect record at
/// `record_path`.
pub fn apply(
    plan: Plan,
    dry_run: bool,
    now: DateTime<Utc>,
    record_path: &Path,
) -> Result<ConnectReport, AgentError> {
    let Plan {
        agent,
        action,
        edits,
        trust,
    } = plan;
    let mut record = ConnectRecord::read(record_path);
    let mut files = Vec::new();
    for edit in edits {
        let changed = edit.changes();
        let diff = if changed {
            compact_diff(
                &edit.path,
                edit.before.as_deref().unwrap_or(""),
                edit.after.as_deref().unwrap_or(""),
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
            let restores_backup = action == Action::Disconnect
                && edit.after.is_some()
                && config_file::newest_backup(&edit.path).as_deref() == edit.after.as_deref();
            if edit.before.is_some() && !restores_backup && edit.after.is_some() {
                backup = Some(config_file::backup(&edit.path, now)?);
            }
            match &edit.after {
                Some(text) => config_file::replace(&edit.path, text)?,
                None => std::fs::remove_file(&edit.path)
                    .map_err(|e| AgentError::io("remove", &edit.path, e))?,
            }
            match action {
                Action::Connect => record.note(&edit.path, edit.before.is_none(), &edit.created),
                Action::Disconnect => record.forget(&edit.path),
            }
        }
        files.push(FileChange {
            removed: changed && edit.after.is_none(),
            path: edit.path,
            changed,
            summary: if changed { edit.summary } else { vec![] },
            diff,
            backup,
        });
    }
    if !dry_run {
        record.write(record_path)?;
    }
    let changed = files.iter().any(|f| f.changed);
    let notes = if trust.iter().any(|h| h.trust != codex_trust::Trust::Trusted) {
        vec![format!(
            "Codex runs a new or changed hook only after you trust it: {}",
            codex_trust::HOW_TO_TRUST
        )]
    } else {
        vec![]
    };
    Ok(ConnectReport {
        agent,
        action,
        dry_run,
        changed,
        files,
        trust,
        notes,
    })
}

/// Only the changed lines and two around each change: never the whole file.
fn compact_diff(path: &Path, before: &str, after: &str) -> String {
    let shown = path.display().to_string();
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(2)
        .header(&format!("{shown} (before)"), &format!("{shown} (after)"))
        .to_string()
}
