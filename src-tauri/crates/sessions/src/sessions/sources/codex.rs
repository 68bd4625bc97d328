//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! Owns: one line of that format → messages and session facts. Current rollouts wrap each item
//! as `{timestamp, type, payload}` (`session_meta`, `turn_context`, `response_item`, `event_msg`,
//! `compacted`); early ones wrote bare response items after a `{id, timestamp, instructions}`
//! header, and both are read. Messages come from `response_item`s only: the `event_msg`
//! `user_message`/`agent_message` lines repeat them for the UI and are skipped, as are
//! developer messages, reasoning and injected context.
//! Deliberately does not: fail on a line it does not know.

use std::borrow::Cow;

use serde_json::Value;

use super::line::{block_text, kind_name, str_at, LineBuilder, LineOutcome, SessionState};

#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow)]
    payload: Option<PayloadKind<'a>>,
}

#[derive(serde::Deserialize)]
struct PayloadKind<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
}

/// UI event echoes and reasoning, handled from their envelope alone (they are most of a
/// rollout's lines); `None` when the line needs the full parse.
pub(crate) fn skip_by_envelope(state: &mut SessionState, raw: &[u8]) -> Option<LineOutcome> {
    let env: Envelope<'_> = serde_json::from_slice(raw).ok()?;
    let payload_kind = env.payload?.kind.unwrap_or_default();
    let outcome = match (env.kind?.as_ref(), payload_kind.as_ref()) {
        ("event_msg", k) => LineOutcome::Skipped(format!("event_msg:{}", kind_name(k))),
        ("response_item", "reasoning") => LineOutcome::Skipped("reasoning".into()),
        _ => return None,
    };
    state.saw_ts(env.timestamp.as_deref());
    Some(outcome)
}

pub(crate) fn parse(state: &mut SessionState, v: &Value, include_tools: bool) -> LineOutcome {
    let ts = str_at(v, "timestamp");
    state.saw_ts(ts);
    let Some(payload) = v.get("payload").filter(|p| p.is_object()) else {
        return legacy(state, v, include_tools);
    };
    match str_at(v, "type").unwrap_or("") {
        "session_meta" => {
            SessionState::set_if_none(&mut state.session_id, str_at(payload, "id"));
            SessionState::set_if_none(&mut state.cwd, str_at(payload, "cwd"));
            state.saw_ts(str_at(payload, "timestamp"));
            LineOutcome::Skipped("session_meta".into())
        }
        "turn_context" => {
            SessionState::set_if_none(&mut state.cwd, str_at(payload, "cwd"));
            if let Some(model) = str_at(payload, "model").filter(|m| !m.is_empty()) {
                state.model = Some(model.to_string());
            }
            LineOutcome::Skipped("turn_context".into())
        }
        "response_item" => item(state, payload, ts, include_tools),
        "event_msg" => LineOutcome::Skipped(format!(
            "event_msg:{}",
            kind_name(str_at(payload, "type").unwrap_or(""))
        )),
        "" => LineOutcome::Skipped("unknown".into()),
        other => LineOutcome::Skipped(kind_name(other)),
    }
}

/// Early rollouts: a header object, then response items without an envelope.
fn legacy(state: &mut SessionState, v: &Value, include_tools: bool) -> LineOutcome {
    match str_at(v, "type") {
        Some(_) => item(state, v, str_at(v, "timestamp"), include_tools),
        None if v.get("record_type").is_some() => LineOutcome::Skipped("state".into()),
        None if v.get("id").is_some() => {
            SessionState::set_if_none(&mut state.session_id, str_at(v, "id"));
            LineOutcome::Skipped("session_meta".into())
        }
        None => LineOutcome::Skipped("unknown".into()),
    }
}

fn item(state: &mut SessionState, p: &Value, ts: Option<&str>, include_tools: bool) -> LineOutcome {
    let mut out = LineBuilder::default();
    match str_at(p, "type").unwrap_or("") {
        "message" => {
            let text = block_text(p.get("content").unwrap_or(&Value::Null));
            match str_at(p, "role").unwrap_or("") {
                "user" => out.user(state, &text, ts),
                "assistant" => out.assistant(&text, ts),
                "developer" | "system" => return LineOutcome::Skipped("developer".into()),
                _ => return LineOutcome::Skipped("message:unknown_role".into()),
            }
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
            let name = str_at(p, "name").unwrap_or("tool");
            let args = p
                .get("arguments")
                .or_else(|| p.get("input"))
                .or_else(|| p.get("action"));
            let text = match args {
                Some(Value::String(s)) => format!("{name} {s}"),
                Some(other) => format!("{name} {other}"),
                None => name.to_string(),
            };
            out.tool(include_tools, "tool_call", &text, ts);
        }
        "function_call_output" | "custom_tool_call_output" => {
            let text = match p.get("output") {
                Some(Value::String(s)) => s.clone(),
                Some(o) => str_at(o, "content")
                    .map(str::to_string)
                    .unwrap_or_else(|| block_text(o)),
                None => String::new(),
            };
            out.tool(include_tools, "tool_output", &text, ts);
        }
        "reasoning" => return LineOutcome::Skipped("reasoning".into()),
        other => return LineOutcome::Skipped(format!("response_item:{}", kind_name(other))),
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::sources::line::Role;
    use serde_json::json;

    #[test]
    fn response_items_are_indexed_and_their_event_echoes_are_not() {
        let mut s = SessionState::default();
        let lines = [
            json!({"timestamp":"2026-05-12T10:00:00Z","type":"session_meta","payload":{"id":"a1","cwd":"/home/u/p","timestamp":"2026-05-12T09:59:55Z"}}),
            json!({"timestamp":"2026-05-12T10:00:00Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>x</permissions instructions>"}]}}),
            json!({"timestamp":"2026-05-12T10:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/p</cwd>\n</environment_context>"}]}}),
            json!({"timestamp":"2026-05-12T10:00:00Z","type":"turn_context","payload":{"cwd":"/home/u/p","model":"o4-mini"}}),
            json!({"timestamp":"2026-05-12T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Why is the cache slow?"}]}}),
            json!({"timestamp":"2026-05-12T10:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"Why is the cache slow?"}}),
            json!({"timestamp":"2026-05-12T10:00:02Z","type":"response_item","payload":{"type":"reasoning","encrypted_content":"x"}}),
            json!({"timestamp":"2026-05-12T10:00:03Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The TTL is too short."}]}}),
            json!({"timestamp":"2026-05-12T10:00:04Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"cmd\":\"ls\"}"}}),
            json!({"timestamp":"2026-05-12T10:00:05Z","type":"future_kind","payload":{}}),
        ];
        let out: Vec<LineOutcome> = lines.iter().map(|l| parse(&mut s, l, false)).collect();
        let kinds: Vec<String> = out
            .iter()
            .map(|o| match o {
                LineOutcome::Messages(m) => format!("{}:{}", m[0].role.as_str(), m[0].text),
                LineOutcome::Skipped(k) => k.clone(),
                LineOutcome::Malformed => "malformed".into(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "session_meta",
                "developer",
                "boilerplate",
                "turn_context",
                "user:Why is the cache slow?",
                "event_msg:user_message",
                "reasoning",
                "assistant:The TTL is too short.",
                "tool_call",
                "future_kind"
            ]
        );
        assert_eq!(s.session_id.as_deref(), Some("a1"));
        assert_eq!(s.model.as_deref(), Some("o4-mini"));
        assert_eq!(s.title(), Some("Why is the cache slow?"));
        assert_eq!(s.first_ts.as_deref(), Some("2026-05-12T09:59:55.000Z"));
        let LineOutcome::Messages(m) = parse(&mut s, &lines[8], true) else {
            panic!()
        };
        assert_eq!(m[0].role, Role::Tool);
    }

    #[test]
    fn early_rollouts_without_an_envelope_are_read() {
        let mut s = SessionState::default();
        parse(
            &mut s,
            &json!({"id":"old-1","timestamp":"2025-04-01T10:00:00Z","instructions":null}),
            false,
        );
        let out = parse(
            &mut s,
            &json!({"type":"message","role":"user","content":[{"type":"input_text","text":"rename the crate"}]}),
            false,
        );
        assert!(matches!(out, LineOutcome::Messages(_)));
        assert_eq!(
            parse(&mut s, &json!({"record_type":"state"}), false),
            LineOutcome::Skipped("state".into())
        );
        assert_eq!(s.session_id.as_deref(), Some("old-1"));
    }
}
