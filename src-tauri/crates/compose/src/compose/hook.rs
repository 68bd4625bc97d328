//! What agents send to `ambry compose --hook …` and what they expect back, per hook event
//! (DESIGN §5, §13, §16): `SessionStart` (source startup | resume | clear | compact),
//! `UserPromptSubmit`, `PreCompact`, and `PreToolUse` (a tool call checked against the rules of
//! the memories in scope: both agents read the same `hookSpecificOutput` — `permissionDecision:
//! deny` with the reason the model reads, or `additionalContext` added before the call runs).
//!
//! Owns: reading the payload (JSON on stdin: `hook_event_name`, `session_id`, `cwd`, `prompt`,
//! `source`; unknown fields ignored; no event name means `UserPromptSubmit`, as older hooks
//! sent), turning it into a `ContextRequest`, and rendering the hook's stdout: Claude Code adds
//! a `SessionStart` or `UserPromptSubmit` hook's plain stdout to the context; Codex reads
//! `{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`.
//! Deliberately does not: compose or read stdin.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::agents::Agent;

/// The moment a composition is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextEvent {
    /// A context begins (or was compacted or cleared): anchors and the map.
    SessionStart,
    /// A prompt: what this context does not hold yet.
    Turn,
    /// The context is about to be compacted: nothing to add, the ledger starts over.
    PreCompact,
}

/// One compose call, from a hook, `compose --query` or the app's preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextRequest {
    pub event: ContextEvent,
    #[serde(default)]
    pub prompt: String,
    /// SessionStart's source: startup | resume | clear | compact.
    #[serde(default)]
    pub source: Option<String>,
    /// The agent's session id; none means a fresh context.
    #[serde(default)]
    pub session_id: Option<String>,
    /// claude | codex | ambry (a person or a script).
    #[serde(default)]
    pub agent: Option<String>,
    /// Record what is given in the ledger (the agents' hooks do; a preview does not).
    #[serde(default)]
    pub record: bool,
    /// The agent's transcript (`transcript_path` of a `UserPromptSubmit` payload): its tail
    /// gives the turn's conversation (DESIGN §5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<PathBuf>,
}

impl ContextRequest {
    /// `compose --query TEXT [--session ID]`: previewed, nothing recorded.
    pub fn query(prompt: &str, session_id: Option<&str>) -> ContextRequest {
        ContextRequest {
            event: ContextEvent::Turn,
            prompt: prompt.to_string(),
            source: None,
            session_id: session_id.map(str::to_string),
            agent: None,
            record: false,
            transcript: None,
        }
    }

    /// A compaction or a clear empties the context (the ledger opens a new generation).
    pub fn empties_context(&self) -> bool {
        match self.event {
            ContextEvent::PreCompact => true,
            ContextEvent::SessionStart => {
                matches!(self.source.as_deref(), Some("compact") | Some("clear"))
            }
            ContextEvent::Turn => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
struct Payload {
    #[serde(default)]
    hook_event_name: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Option<serde_json::Value>,
    #[serde(default)]
    transcript_path: Option<PathBuf>,
}

/// What a hook payload asks for: a moment of the context, or a tool call checked.
#[derive(Debug, Clone, PartialEq)]
pub enum HookCall {
    Context(ContextRequest),
    Tool(crate::enforce::ToolCheck),
}

#[derive(Debug, thiserror::Error)]
#[error("the hook payload is not the JSON {agent} sends: {reason}")]
pub struct PayloadError {
    pub agent: &'static str,
    pub reason: String,
}

impl ambry_store::error::ErrorCode for PayloadError {
    fn code(&self) -> ambry_store::error::Code {
        ambry_store::error::Code::BadHookPayload
    }
}

/// The context request a hook payload makes, and the cwd it names (a `PreToolUse` payload is
/// refused here: see [`parse_call`]).
pub fn parse(agent: Agent, raw: &str) -> Result<(ContextRequest, Option<PathBuf>), PayloadError> {
    match parse_call(agent, raw)? {
        (HookCall::Context(request), cwd) => Ok((request, cwd)),
        (HookCall::Tool(_), _) => Err(PayloadError {
            agent: agent.display_name(),
            reason: "a PreToolUse payload asks for a tool check, not a context".into(),
        }),
    }
}

/// What a hook payload asks for, and the cwd it names.
pub fn parse_call(agent: Agent, raw: &str) -> Result<(HookCall, Option<PathBuf>), PayloadError> {
    let fail = |reason: String| PayloadError {
        agent: agent.display_name(),
        reason,
    };
    let p: Payload = serde_json::from_str(raw).map_err(|e| fail(e.to_string()))?;
    let agent_name = match agent {
        Agent::Claude => "claude",
        Agent::Codex => "codex",
    };
    let event = match p.hook_event_name.as_deref() {
        None | Some("UserPromptSubmit") => ContextEvent::Turn,
        Some("SessionStart") => ContextEvent::SessionStart,
        Some("PreCompact") => ContextEvent::PreCompact,
        Some("PreToolUse") => {
            let tool = p
                .tool_name
                .filter(|t| !t.trim().is_empty())
                .ok_or_else(|| fail("a PreToolUse payload without `tool_name`".into()))?;
            let input = p.tool_input.unwrap_or(serde_json::Value::Null);
            let check = crate::enforce::ToolCheck {
                call: crate::enforce::ToolCall::from_hook(&tool, &input),
                session_id: p.session_id.filter(|s| !s.trim().is_empty()),
                agent: Some(agent_name.to_string()),
                record: true,
            };
            return Ok((HookCall::Tool(check), p.cwd));
        }
        Some(other) => {
            return Err(fail(format!(
                "hook_event_name `{other}` is not one Ambry answers (SessionStart, UserPromptSubmit, PreCompact, PreToolUse)"
            )))
        }
    };
    Ok((
        HookCall::Context(ContextRequest {
            event,
            prompt: p.prompt.unwrap_or_default(),
            source: p.source,
            session_id: p.session_id.filter(|s| !s.trim().is_empty()),
            agent: Some(agent_name.to_string()),
            record: true,
            transcript: p.transcript_path.filter(|t| !t.as_os_str().is_empty()),
        }),
        p.cwd,
    ))
}

/// A `PreToolUse` hook's stdout for a verdict, the same for both agents: nothing when no rule
/// caught the call (it goes on untouched).
pub fn render_tool(verdict: &crate::enforce::ToolVerdict) -> String {
    use crate::enforce::Decision;
    let out = match verdict.decision {
        Decision::None => return String::new(),
        Decision::Deny => serde_json::json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": verdict.text,
        }}),
        Decision::Remind => serde_json::json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "additionalContext": verdict.text,
        }}),
    };
    format!("{out}\n")
}

/// The hook's stdout for a composed block; empty when there is nothing to add.
pub fn render(agent: Agent, event: ContextEvent, block: &str) -> String {
    if block.trim().is_empty() || event == ContextEvent::PreCompact {
        return String::new();
    }
    match agent {
        Agent::Claude => block.to_string(),
        Agent::Codex => {
            let name = match event {
                ContextEvent::SessionStart => "SessionStart",
                _ => "UserPromptSubmit",
            };
            let out = serde_json::json!({
                "hookSpecificOutput": { "hookEventName": name, "additionalContext": block }
            });
            format!("{out}\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_event_is_read_and_answered_in_the_agents_format() {
        let raw = r#"{"session_id":"0199","transcript_path":"/t.jsonl","cwd":"/repo","hook_event_name":"UserPromptSubmit","model":"gpt-5","turn_id":"t1","prompt":"fix the build"}"#;
        let (req, cwd) = parse(Agent::Codex, raw).unwrap();
        assert_eq!(req.event, ContextEvent::Turn);
        assert_eq!(req.prompt, "fix the build");
        assert_eq!(req.session_id.as_deref(), Some("0199"));
        assert_eq!(req.transcript, Some(PathBuf::from("/t.jsonl")));
        assert!(req.record);
        assert_eq!(cwd, Some(PathBuf::from("/repo")));

        let (start, _) = parse(
            Agent::Claude,
            r#"{"session_id":"s","hook_event_name":"SessionStart","source":"compact"}"#,
        )
        .unwrap();
        assert_eq!(start.event, ContextEvent::SessionStart);
        assert!(start.empties_context());
        let (resume, _) = parse(
            Agent::Claude,
            r#"{"session_id":"s","hook_event_name":"SessionStart","source":"resume"}"#,
        )
        .unwrap();
        assert!(!resume.empties_context());
        let (pre, _) = parse(
            Agent::Claude,
            r#"{"session_id":"s","hook_event_name":"PreCompact","trigger":"auto"}"#,
        )
        .unwrap();
        assert!(pre.empties_context());
        assert_eq!(render(Agent::Claude, ContextEvent::PreCompact, "x"), "");
        // An older payload without an event name is a prompt.
        let (old, _) = parse(Agent::Claude, r#"{"prompt":"hi"}"#).unwrap();
        assert_eq!(old.event, ContextEvent::Turn);
        assert!(parse(Agent::Claude, r#"{"hook_event_name":"Stop"}"#).is_err());

        // A tool call, as both agents send it.
        let raw = r#"{"session_id":"s","cwd":"/repo","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm i","description":"x"},"tool_use_id":"t"}"#;
        let (HookCall::Tool(check), cwd) = parse_call(Agent::Codex, raw).unwrap() else {
            panic!("a PreToolUse payload is a tool check")
        };
        assert_eq!(
            (check.call.tool.as_str(), check.call.input.as_str()),
            ("Bash", "npm i")
        );
        assert_eq!(check.session_id.as_deref(), Some("s"));
        assert_eq!(cwd, Some(PathBuf::from("/repo")));
        assert!(parse(Agent::Claude, raw).is_err());
        assert!(parse_call(Agent::Claude, r#"{"hook_event_name":"PreToolUse"}"#).is_err());

        let out: serde_json::Value = serde_json::from_str(&render(
            Agent::Codex,
            ContextEvent::SessionStart,
            "<ambry-memory>\nx\n</ambry-memory>\n",
        ))
        .unwrap();
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(
            out["hookSpecificOutput"]["additionalContext"],
            "<ambry-memory>\nx\n</ambry-memory>\n"
        );
        assert_eq!(
            render(Agent::Claude, ContextEvent::Turn, "block\n"),
            "block\n"
        );
        assert_eq!(render(Agent::Codex, ContextEvent::Turn, ""), "");
    }
}
