//! Claude Code transcripts (`~/.claude/projects/<dir>/<session>.jsonl`, and subagent files).
//!
//! Owns: one line of that format → messages and session facts. `user` and `assistant` lines
//! carry `message.content` as a string or as `text`/`thinking`/`tool_use`/`tool_result` blocks;
//! `summary` and `custom-title` lines name the session; everything else (`progress`, `system`,
//! `file-history-snapshot`, `queue-operation`, and kinds newer versions add) is skipped by kind.
//! Deliberately does not: fail on a line it does not know.

use std::borrow::Cow;

use serde_json::Value;

use super::line::{block_text, kind_name, str_at, LineBuilder, LineOutcome, SessionState};

/// The fields every line kind may carry; reading only these skips the bulk of a line
/// (`progress` and snapshot lines are large) without building it as a JSON tree.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "sessionId")]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
}

/// Lines of a kind that is never indexed, handled from their envelope alone; `None` when the
/// line needs the full parse (or is not a JSON object, which the full parse reports).
pub(crate) fn skip_by_envelope(state: &mut SessionState, raw: &[u8]) -> Option<LineOutcome> {
    let env: Envelope<'_> = serde_json::from_slice(raw).ok()?;
    let kind = env.kind?;
    if matches!(kind.as_ref(), "user" | "assistant" | "summary" | "custom-title" | "") {
        return None;
    }
    state.saw_ts(env.timestamp.as_deref());
    SessionState::set_if_none(&mut state.session_id, env.session_id.as_deref());
    SessionState::set_if_none(&mut state.cwd, env.cwd.as_deref());
    Some(LineOutcome::Skipped(kind_name(&kind)))
}

pub(crate) fn parse(state: &mut SessionState, v: &Value, include_tools: bool) -> LineOutcome {
    let kind = str_at(v, "type").unwrap_or("");
    let ts = str_at(v, "timestamp");
    // Hook progress and system lines mark activity too: the session spans all of them.
    state.saw_ts(ts);
    match kind {
        "user" | "assistant" => {
            SessionState::set_if_none(&mut state.session_id, str_at(v, "sessionId"));
            SessionState::set_if_none(&mut state.cwd, str_at(v, "cwd"));
            if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
                return LineOutcome::Skipped("meta".into());
            }
            if v.get("isCompactSummary").and_then(Value::as_bool) == Some(true) {
                return LineOutcome::Skipped("compact_summary".into());
            }
            let Some(message) = v.get("message") else { return LineOutcome::Skipped(format!("{kind}:no_message")) };
            if kind == "assistant" {
                let model = str_at(message, "model").filter(|m| !m.starts_with('<'));
                if model.is_some() {
                    state.model = model.map(str::to_string);
                }
            }
            message_blocks(state, kind, message.get("content").unwrap_or(&Value::Null), ts, include_tools)
        }
        "summary" => {
            if let Some(summary) = str_at(v, "summary").map(str::trim).filter(|s| !s.is_empty()) {
                state.agent_title = Some(summary.to_string());
            }
            LineOutcome::Skipped("summary".into())
        }
        "custom-title" => {
            if let Some(title) = str_at(v, "customTitle").map(str::trim).filter(|s| !s.is_empty()) {
                state.agent_title = Some(title.to_string());
            }
            LineOutcome::Skipped("custom-title".into())
        }
        "" => LineOutcome::Skipped("unknown".into()),
        other => {
            SessionState::set_if_none(&mut state.session_id, str_at(v, "sessionId"));
            SessionState::set_if_none(&mut state.cwd, str_at(v, "cwd"));
            LineOutcome::Skipped(kind_name(other))
        }
    }
}

fn message_blocks(state: &mut SessionState, kind: &str, content: &Value, ts: Option<&str>, include_tools: bool) -> LineOutcome {
    let mut out = LineBuilder::default();
    let blocks: Vec<&Value> = match content {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    for block in blocks {
        let block_kind = match block {
            Value::String(_) => "text",
            Value::Object(_) => str_at(block, "type").unwrap_or(""),
            _ => "",
        };
        let text = || match block {
            Value::String(s) => s.as_str(),
            _ => str_at(block, "text").unwrap_or(""),
        };
        match block_kind {
            "text" if kind == "user" => out.user(state, text(), ts),
            "text" => out.assistant(text(), ts),
            // Tool text is built only when it is kept: tool lines are most of a transcript's bytes.
            "tool_use" if include_tools => out.tool(true, "tool_use", &tool_use_text(block), ts),
            "tool_result" if include_tools => {
                out.tool(true, "tool_result", &block_text(block.get("content").unwrap_or(&Value::Null)), ts)
            }
            "tool_use" => out.drop_because("tool_use"),
            "tool_result" => out.drop_because("tool_result"),
            "thinking" | "redacted_thinking" => out.drop_because("thinking"),
            "image" | "document" => out.drop_because("attachment"),
            "" => out.drop_because("empty"),
            _ => out.drop_because("unknown_block"),
        }
    }
    out.finish()
}

fn tool_use_text(block: &Value) -> String {
    let name = str_at(block, "name").unwrap_or("tool");
    match block.get("input") {
        Some(input) => format!("{name} {input}"),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::line::Role;
    use serde_json::json;

    fn run(lines: &[Value], tools: bool) -> (SessionState, Vec<LineOutcome>) {
        let mut s = SessionState::default();
        let out = lines.iter().map(|l| parse(&mut s, l, tools)).collect();
        (s, out)
    }

    #[test]
    fn user_and_assistant_text_is_kept_with_session_facts() {
        let (s, out) = run(
            &[
                json!({"type":"progress","sessionId":"s1","cwd":"/p","data":{}}),
                json!({"type":"user","sessionId":"s1","cwd":"/p","timestamp":"2026-02-10T21:11:56Z","message":{"role":"user","content":"mix phx.server doesnt start"}}),
                json!({"type":"assistant","timestamp":"2026-02-10T21:12:00Z","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Let me check."}]}}),
            ],
            false,
        );
        assert_eq!(out[0], LineOutcome::Skipped("progress".into()));
        let LineOutcome::Messages(m) = &out[1] else { panic!("{out:?}") };
        assert_eq!((m[0].role, m[0].text.as_str()), (Role::User, "mix phx.server doesnt start"));
        let LineOutcome::Messages(m) = &out[2] else { panic!("{out:?}") };
        assert_eq!((m.len(), m[0].role), (1, Role::Assistant));
        assert_eq!(s.session_id.as_deref(), Some("s1"));
        assert_eq!(s.cwd.as_deref(), Some("/p"));
        assert_eq!(s.model.as_deref(), Some("claude-opus-4-6"));
        assert_eq!(s.title(), Some("mix phx.server doesnt start"));
        assert_eq!(s.last_ts.as_deref(), Some("2026-02-10T21:12:00.000Z"));
    }

    #[test]
    fn tools_are_switchable_and_meta_lines_are_skipped() {
        let tool_use = json!({"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"cargo test"}}]}});
        let tool_result = json!({"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"3 passed"}]}]}});
        let (_, out) = run(&[tool_use.clone(), tool_result.clone()], false);
        assert_eq!(out, vec![LineOutcome::Skipped("tool_use".into()), LineOutcome::Skipped("tool_result".into())]);
        let (s, out) = run(&[tool_use, tool_result], true);
        let LineOutcome::Messages(m) = &out[0] else { panic!() };
        assert!(m[0].text.contains("cargo test") && m[0].role == Role::Tool);
        let LineOutcome::Messages(m) = &out[1] else { panic!() };
        assert_eq!(m[0].text, "3 passed");
        assert_eq!(s.title(), None, "tool results are not prompts");
        let (_, out) = run(&[json!({"type":"user","isMeta":true,"message":{"content":"Caveat: x"}})], true);
        assert_eq!(out[0], LineOutcome::Skipped("meta".into()));
    }

    #[test]
    fn summary_names_the_session_and_unknown_kinds_are_skipped() {
        let (s, out) = run(
            &[
                json!({"type":"user","message":{"content":"first prompt"}}),
                json!({"type":"summary","summary":"Fix Phoenix startup","leafUuid":"x"}),
                json!({"type":"brand-new-kind","whatever":1}),
                json!({"no_type": true}),
                json!({"type":"assistant","message":{"content":[{"type":"server_tool_use"}]}}),
            ],
            false,
        );
        assert_eq!(s.title(), Some("Fix Phoenix startup"));
        assert_eq!(out[2], LineOutcome::Skipped("brand-new-kind".into()));
        assert_eq!(out[3], LineOutcome::Skipped("unknown".into()));
        assert_eq!(out[4], LineOutcome::Skipped("unknown_block".into()));
    }
}
