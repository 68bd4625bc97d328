//! What agents send to `ambry compose --hook …` and what they expect back.
//!
//! Owns: parsing the `UserPromptSubmit` payload (JSON on stdin: `prompt`, `cwd`, `session_id`,
//! …; both agents send this shape) and rendering the hook's stdout. Claude Code adds a
//! `UserPromptSubmit` hook's plain stdout to the context; for Codex the output is the
//! structured form `{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
//! "additionalContext": …}}`, which Codex's hook runner reads as added context.
//! Deliberately does not: compose (the caller passes the composed text in) or read stdin.

use std::path::PathBuf;

use serde::Deserialize;

use super::Agent;

/// The fields of a `UserPromptSubmit` payload that compose uses; unknown fields are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HookTurn {
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub session_id: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("the hook payload is not the JSON {agent} sends: {reason}")]
pub struct PayloadError {
    pub agent: &'static str,
    pub reason: String,
}

impl crate::ErrorCode for PayloadError {
    fn code(&self) -> &'static str {
        "bad_hook_payload"
    }
}

pub fn parse(agent: Agent, raw: &str) -> Result<HookTurn, PayloadError> {
    serde_json::from_str(raw).map_err(|e| PayloadError {
        agent: agent.display_name(),
        reason: e.to_string(),
    })
}

/// The hook's stdout for a composed block; empty when there is nothing to add.
pub fn render(agent: Agent, block: &str) -> String {
    if block.trim().is_empty() {
        return String::new();
    }
    match agent {
        Agent::Claude => block.to_string(),
        Agent::Codex => {
            let out = serde_json::json!({
                "hookSpecificOutput": { "hookEventName": "UserPromptSubmit", "additionalContext": block }
            });
            format!("{out}\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_codex_payload_and_answers_with_added_context() {
        let raw = r#"{"session_id":"0199","transcript_path":"/t.jsonl","cwd":"/repo","hook_event_name":"UserPromptSubmit","model":"gpt-5","turn_id":"t1","prompt":"fix the build"}"#;
        let turn = parse(Agent::Codex, raw).unwrap();
        assert_eq!(turn.prompt.as_deref(), Some("fix the build"));
        assert_eq!(turn.cwd, Some(PathBuf::from("/repo")));
        let out: serde_json::Value = serde_json::from_str(&render(
            Agent::Codex,
            "<ambry-memory>\nx\n</ambry-memory>\n",
        ))
        .unwrap();
        assert_eq!(
            out["hookSpecificOutput"]["additionalContext"],
            "<ambry-memory>\nx\n</ambry-memory>\n"
        );
        assert_eq!(render(Agent::Claude, "block\n"), "block\n");
        assert_eq!(render(Agent::Codex, ""), "");
        assert!(parse(Agent::Claude, "not json")
            .unwrap_err()
            .to_string()
            .contains("Claude Code"));
    }
}
