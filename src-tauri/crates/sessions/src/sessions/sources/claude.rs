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

/// A whole line read into borrowed fields in one pass: the common lines (turns, and kinds that
/// are skipped) without building a JSON tree. Tool payloads, the bulk of a transcript, are
/// stepped over unless tools are indexed.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "sessionId")]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(borrow)]
    message: Option<TurnMessage<'a>>,
}

#[derive(serde::Deserialize)]
struct TurnMessage<'a> {
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Content<'a>,
}

/// `message.content`: a string, a list of blocks, one block, or anything else (no text).
#[derive(Default)]
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    One(Block<'a>),
    #[default]
    Other,
}

#[derive(serde::Deserialize)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Content<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Content<'a>, A::Error> {
                // A block that is not an object fails the whole line, which then takes the
                // general path.
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Content<'a>, A::Error> {
                <Block<'a> as serde::Deserialize>::deserialize(
                    serde::de::value::MapAccessDeserializer::new(map),
                )
                .map(Content::One)
            }
            fn visit_unit<E>(self) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_none<E>(self) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(Visit(std::marker::PhantomData))
    }
}

/// The outcome of the lines the one-pass read covers; `None` sends the line down the general
/// path (`parse` over the JSON tree), which gives the same result for these lines.
pub(crate) fn parse_fast(
    state: &mut SessionState,
    raw: &[u8],
    include_tools: bool,
) -> Option<LineOutcome> {
    let line: Line<'_> = serde_json::from_slice(raw).ok()?;
    let kind = line.kind.as_deref()?;
    if matches!(kind, "summary" | "custom-title" | "") {
        return None;
    }
    if !matches!(kind, "user" | "assistant") {
        state.saw_ts(line.timestamp.as_deref());
        SessionState::set_if_none(&mut state.session_id, line.session_id.as_deref());
        SessionState::set_if_none(&mut state.cwd, line.cwd.as_deref());
        return Some(LineOutcome::Skipped(kind_name(kind)));
    }
    // A `null` message, or tool blocks that are kept, need the JSON tree.
    let message = line.message.as_ref()?;
    let blocks: &[Block<'_>] = match &message.content {
        Content::Blocks(b) => b,
        Content::One(b) => std::slice::from_ref(b),
        Content::Text(_) | Content::Other => &[],
    };
    if include_tools
        && blocks
            .iter()
            .any(|b| matches!(b.kind.as_deref(), Some("tool_use" | "tool_result")))
    {
        return None;
    }
    let ts = line.timestamp.as_deref();
    state.saw_ts(ts);
    SessionState::set_if_none(&mut state.session_id, line.session_id.as_deref());
    SessionState::set_if_none(&mut state.cwd, line.cwd.as_deref());
    if line.is_meta == Some(true) {
        return Some(LineOutcome::Skipped("meta".into()));
    }
    if line.is_compact_summary == Some(true) {
        if state.keep_context {
            return None; // shown where the compaction happened: the general path builds it
        }
        return Some(LineOutcome::Skipped("compact_summary".into()));
    }
    if kind == "assistant" {
        if let Some(model) = message.model.as_deref().filter(|m| !m.starts_with('<')) {
            state.model = Some(model.to_string());
        }
    }
    let mut out = LineBuilder::default();
    match &message.content {
        Content::Text(text) if kind == "user" => out.user(state, text, ts),
        Content::Text(text) => out.assistant(text, ts),
        Content::Other => out.drop_because("empty"),
        Content::Blocks(_) | Content::One(_) => {}
    }
    for block in blocks {
        let text = block.text.as_deref().unwrap_or("");
        match block.kind.as_deref().unwrap_or("") {
            "text" if kind == "user" => out.user(state, text, ts),
            "text" => out.assistant(text, ts),
            "tool_use" => out.drop_because("tool_use"),
            "tool_result" => out.drop_because("tool_result"),
            "thinking" | "redacted_thinking" => out.drop_because("thinking"),
            "image" | "document" => out.drop_because("attachment"),
            "" => out.drop_because("empty"),
            _ => out.drop_because("unknown_block"),
        }
    }
    Some(out.finish())
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
                // The summary that continues a compacted conversation marks where it was
                // compacted: folded in a transcript, never indexed as the person's words.
                let text = v
                    .get("message")
                    .and_then(|m| m.get("content"))
                    .map(block_text)
                    .unwrap_or_default();
                let mut out = LineBuilder::default();
                out.context(state, &text, ts);
                return match out.finish() {
                    LineOutcome::Skipped(_) => LineOutcome::Skipped("compact_summary".into()),
                    kept => kept,
                };
            }
            let Some(message) = v.get("message") else {
                return LineOutcome::Skipped(format!("{kind}:no_message"));
            };
            if kind == "assistant" {
                let model = str_at(message, "model").filter(|m| !m.starts_with('<'));
                if model.is_some() {
                    state.model = model.map(str::to_string);
                }
            }
            message_blocks(
                state,
                kind,
                message.get("content").unwrap_or(&Value::Null),
                ts,
                include_tools,
            )
        }
        "summary" => {
            if let Some(summary) = str_at(v, "summary") {
                state.set_agent_title(summary);
            }
            LineOutcome::Skipped("summary".into())
        }
        "custom-title" => {
            if let Some(title) = str_at(v, "customTitle") {
                state.set_agent_title(title);
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

fn message_blocks(
    state: &mut SessionState,
    kind: &str,
    content: &Value,
    ts: Option<&str>,
    include_tools: bool,
) -> LineOutcome {
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
            "tool_result" if include_tools => out.tool(
                true,
                "tool_result",
                &block_text(block.get("content").unwrap_or(&Value::Null)),
                ts,
            ),
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
    use crate::sessions::sources::line::Role;
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
        let LineOutcome::Messages(m) = &out[1] else {
            panic!("{out:?}")
        };
        assert_eq!(
            (m[0].role, m[0].text.as_str()),
            (Role::User, "mix phx.server doesnt start")
        );
        let LineOutcome::Messages(m) = &out[2] else {
            panic!("{out:?}")
        };
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
        assert_eq!(
            out,
            vec![
                LineOutcome::Skipped("tool_use".into()),
                LineOutcome::Skipped("tool_result".into())
            ]
        );
        let (s, out) = run(&[tool_use, tool_result], true);
        let LineOutcome::Messages(m) = &out[0] else {
            panic!()
        };
        assert!(m[0].text.contains("cargo test") && m[0].role == Role::Tool);
        let LineOutcome::Messages(m) = &out[1] else {
            panic!()
        };
        assert_eq!(m[0].text, "3 passed");
        assert_eq!(s.title(), None, "tool results are not prompts");
        let (_, out) = run(
            &[json!({"type":"user","isMeta":true,"message":{"content":"Caveat: x"}})],
            true,
        );
        assert_eq!(out[0], LineOutcome::Skipped("meta".into()));
    }

    /// The general path for a line, as `parse_line` takes it when the one-pass read declines.
    fn general(state: &mut SessionState, raw: &[u8], tools: bool) -> LineOutcome {
        match serde_json::from_slice::<Value>(raw) {
            Ok(v @ Value::Object(_)) => parse(state, &v, tools),
            _ => LineOutcome::Malformed,
        }
    }

    #[test]
    fn the_one_pass_read_agrees_with_the_general_path() {
        // Where cargo runs the test from (a shared build cache may hold a binary built in
        // another checkout).
        let dir = std::env::var_os("CARGO_MANIFEST_DIR")
            .map_or_else(
                || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
                std::path::PathBuf::from,
            )
            .join("../../core/tests/fixtures/formats/claude-code");
        let mut lines: Vec<String> = ["short.jsonl", "tool_heavy.jsonl"]
            .iter()
            .flat_map(|n| {
                std::fs::read_to_string(dir.join(n))
                    .unwrap()
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        lines.extend(
            [
                r#"{"type":"user","timestamp":"2026-02-10T21:11:56.000Z","message":{"content":"plain \"escaped\" prompt"}}"#,
                r#"{"type":"user","timestamp":"2026-02-10T21:11:57+02:00","message":{"content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"tool_result","content":"ok"}]}}"#,
                r#"{"type":"assistant","message":{"model":"<synthetic>","content":{"type":"text","text":"one block"}}}"#,
                r#"{"type":"assistant","message":{"content":["a bare string block"]}}"#,
                r#"{"type":"assistant","message":{"content":[{"type":"text","text":7}]}}"#,
                r#"{"type":"assistant","message":null}"#,
                r#"{"type":"user","message":{"content":null}}"#,
                r#"{"type":"user","message":{"content":42}}"#,
                r#"{"type":"user","isMeta":"yes","message":{"content":"meta as text"}}"#,
                r#"{"type":"user","isCompactSummary":true,"message":{"content":"summary"}}"#,
                r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}"#,
                r#"{"type":"progress","timestamp":"2026-02-10T21:12:00.000Z","sessionId":"s9","message":{"content":["x"]}}"#,
                r#"{"type":"summary","summary":"Named"}"#,
                r#"{"type":"","x":1}"#,
                r#"{"type":"user","type":"assistant","message":{"content":"duplicate keys"}}"#,
            ]
            .map(str::to_string),
        );
        for tools in [false, true] {
            let (mut fast_state, mut general_state) =
                (SessionState::default(), SessionState::default());
            let mut taken = 0;
            for line in &lines {
                let raw = line.trim().as_bytes();
                let expected = general(&mut general_state, raw, tools);
                let got = match parse_fast(&mut fast_state, raw, tools) {
                    Some(outcome) => {
                        taken += 1;
                        outcome
                    }
                    None => general(&mut fast_state, raw, tools),
                };
                assert_eq!(got, expected, "{line}");
                assert_eq!(fast_state, general_state, "{line}");
            }
            assert!(
                taken > lines.len() / 2,
                "the one-pass read handles most lines ({taken} of {})",
                lines.len()
            );
        }
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
