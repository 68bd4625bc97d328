//! Ambry-native transcripts (`AMBRY_HOME/sessions/*.jsonl`, DESIGN §7).
//!
//! Owns: one line of that format → a message: `{"ts", "role": user|assistant|tool, "text"}`,
//! with an optional first line `{"session": {"id", "title", "cwd", "model"}}`.
//! Deliberately does not: fail on a line it does not know.

use serde_json::Value;

use super::line::{str_at, LineBuilder, LineOutcome, SessionState};

pub(crate) fn parse(state: &mut SessionState, v: &Value, include_tools: bool) -> LineOutcome {
    if let Some(header) = v.get("session").filter(|h| h.is_object()) {
        SessionState::set_if_none(&mut state.session_id, str_at(header, "id"));
        SessionState::set_if_none(&mut state.cwd, str_at(header, "cwd"));
        SessionState::set_if_none(&mut state.model, str_at(header, "model"));
        if let Some(title) = str_at(header, "title").filter(|_| state.agent_title.is_none()) {
            state.set_agent_title(title);
        }
        return LineOutcome::Skipped("session".into());
    }
    let ts = str_at(v, "ts");
    let Some(text) = str_at(v, "text") else {
        return LineOutcome::Skipped("no_text".into());
    };
    state.saw_ts(ts);
    let mut out = LineBuilder::default();
    match str_at(v, "role").unwrap_or("") {
        "user" => out.user(state, text, ts),
        "assistant" => out.assistant(text, ts),
        "tool" => out.tool(include_tools, "tool", text, ts),
        _ => return LineOutcome::Skipped("unknown_role".into()),
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn header_and_turns() {
        let mut s = SessionState::default();
        assert_eq!(
            parse(
                &mut s,
                &json!({"session":{"id":"n1","title":"Drop Redis","cwd":"/p","model":"m"}}),
                false
            ),
            LineOutcome::Skipped("session".into())
        );
        assert!(matches!(
            parse(
                &mut s,
                &json!({"ts":"2026-01-01T00:00:00Z","role":"user","text":"go"}),
                false
            ),
            LineOutcome::Messages(_)
        ));
        assert_eq!(
            parse(&mut s, &json!({"ts":"t","role":"tool","text":"out"}), false),
            LineOutcome::Skipped("tool".into())
        );
        assert_eq!(
            parse(
                &mut s,
                &json!({"ts":"t","role":"narrator","text":"x"}),
                false
            ),
            LineOutcome::Skipped("unknown_role".into())
        );
        assert_eq!(
            parse(&mut s, &json!({"ts":"t","role":"user"}), false),
            LineOutcome::Skipped("no_text".into())
        );
        assert_eq!(
            (s.session_id.as_deref(), s.title()),
            (Some("n1"), Some("Drop Redis"))
        );
    }
}
