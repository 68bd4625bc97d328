//! The vocabulary every transcript parser shares: what one line yields.
//!
//! Owns: `Message`, `LineOutcome`, the per-file `SessionState` a parser fills in as it reads
//! (kept in the index between runs, so reading can resume at a byte offset), and the small
//! JSON accessors the parsers use.
//! Deliberately does not: know any source's format.

use std::borrow::Cow;

use serde_json::Value;

use super::boilerplate;

/// Tool calls and results are long (whole files, command output); beyond this they are cut.
const MAX_TOOL_TEXT: usize = 16 * 1024;
/// A title is the prompt whole, on one line; only a prompt longer than this (a pasted log, a
/// spec) is cut, at a word, with an ellipsis.
const MAX_TITLE_CHARS: usize = 500;
const MAX_KIND_CHARS: usize = 48;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    User,
    Assistant,
    Tool,
    /// What an agent injected into the user's side (reminders, notifications, command echoes):
    /// only read for a transcript (`SessionState::keep_context`), never indexed.
    Context,
}

impl Role {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Context => "context",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    pub role: Role,
    pub text: String,
    pub ts: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineOutcome {
    /// Text to index (one line can carry several blocks).
    Messages(Vec<Message>),
    /// Deliberately not indexed; the kind is counted (`progress`, `boilerplate`, …).
    Skipped(String),
    /// Not JSON, or not a JSON object.
    Malformed,
}

/// What a parser learns about its session while reading; persisted per file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SessionState {
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    /// A title the agent wrote itself (a summary line, a native header).
    pub agent_title: Option<String>,
    /// The first real user prompt, as a one-line title.
    pub first_prompt: Option<String>,
    pub model: Option<String>,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    /// Keep injected text as `Role::Context` messages (a transcript shown to a person); the
    /// index drops it. Not persisted.
    pub keep_context: bool,
}

impl SessionState {
    /// The index computes the same from its columns; this is the parsers' view of it.
    #[cfg(test)]
    pub(crate) fn title(&self) -> Option<&str> {
        self.agent_title.as_deref().or(self.first_prompt.as_deref())
    }

    /// Widens the session's span. Timestamps are kept as UTC with milliseconds so that sessions
    /// from different sources (and offsets) sort correctly as text.
    pub(crate) fn saw_ts(&mut self, ts: Option<&str>) {
        let Some(ts) = ts.and_then(utc_millis) else {
            return;
        };
        if self.first_ts.as_deref().is_none_or(|f| ts.as_ref() < f) {
            self.first_ts = Some(ts.to_string());
        }
        if self.last_ts.as_deref().is_none_or(|l| ts.as_ref() > l) {
            self.last_ts = Some(ts.into_owned());
        }
    }

    pub(crate) fn set_if_none(slot: &mut Option<String>, value: Option<&str>) {
        if slot.is_none() {
            if let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) {
                *slot = Some(v.to_string());
            }
        }
    }

    /// A title the agent wrote (a summary line, a custom title, a native header): one short
    /// line without control characters, like a prompt's; blank ones are ignored.
    pub(crate) fn set_agent_title(&mut self, text: &str) {
        let line = one_line(&shown(boilerplate::scrub(text)), MAX_TITLE_CHARS);
        if !line.is_empty() {
            self.agent_title = Some(line);
        }
    }

    /// Records a user prompt: the first one becomes the title when the agent gave none.
    pub(crate) fn saw_prompt(&mut self, text: &str) {
        if self.first_prompt.is_none() {
            self.first_prompt = Some(one_line(text, MAX_TITLE_CHARS));
        }
    }
}

/// Collects the messages of one line, remembering why blocks were dropped.
#[derive(Default)]
pub(crate) struct LineBuilder {
    messages: Vec<Message>,
    /// The first reason a block was dropped, reported when nothing was kept.
    dropped: Option<&'static str>,
}

impl LineBuilder {
    pub(crate) fn user(&mut self, state: &mut SessionState, text: &str, ts: Option<&str>) {
        let (own, injected) = boilerplate::split_user_text(text);
        if injected
            .first()
            .is_some_and(|i| boilerplate::is_compaction_request(i))
        {
            // Not the person's words: the run is titled by what it is.
            state
                .agent_title
                .get_or_insert_with(|| super::runs::COMPACTION_TITLE.to_string());
        }
        if state.keep_context && !injected.is_empty() {
            self.push(Role::Context, injected.join("\n"), ts);
        }
        match own {
            Some(clean) => {
                let clean = shown(clean);
                state.saw_prompt(&clean);
                self.push(Role::User, clean, ts);
            }
            None => self.drop_because("boilerplate"),
        }
    }

    /// Text the agent put on the person's side as a whole (Claude Code's summary that continues
    /// a compacted conversation): shown folded in a transcript, where the compaction happened;
    /// never indexed.
    pub(crate) fn context(&mut self, state: &SessionState, text: &str, ts: Option<&str>) {
        let text = shown(boilerplate::scrub(text));
        if state.keep_context && !text.trim().is_empty() {
            self.push(Role::Context, text, ts);
        } else {
            self.drop_because("context");
        }
    }

    pub(crate) fn assistant(&mut self, text: &str, ts: Option<&str>) {
        let text = shown(boilerplate::scrub(text));
        if text.trim().is_empty() {
            self.drop_because("empty");
        } else {
            self.push(Role::Assistant, text, ts);
        }
    }

    /// A tool call or result: kept only when tools are indexed.
    pub(crate) fn tool(&mut self, include: bool, kind: &'static str, text: &str, ts: Option<&str>) {
        let text = shown(boilerplate::scrub(text));
        if !include {
            self.drop_because(kind);
        } else if text.trim().is_empty() {
            self.drop_because("empty");
        } else {
            self.push(Role::Tool, truncate(text, MAX_TOOL_TEXT), ts);
        }
    }

    pub(crate) fn drop_because(&mut self, kind: &'static str) {
        self.dropped.get_or_insert(kind);
    }

    fn push(&mut self, role: Role, text: String, ts: Option<&str>) {
        self.messages.push(Message {
            role,
            text,
            ts: ts.map(str::to_string),
        });
    }

    pub(crate) fn finish(self) -> LineOutcome {
        if self.messages.is_empty() {
            LineOutcome::Skipped(self.dropped.unwrap_or("empty").to_string())
        } else {
            LineOutcome::Messages(self.messages)
        }
    }
}

/// Text as the index stores it and every view shows it: secrets masked (DESIGN §3). Masked here,
/// where a line becomes a message, rather than where it is shown: the index outlives the
/// transcript (the vault), so a verbatim copy there would keep a secret the person deleted; a
/// snippet can cut a secret anywhere, past recognising; and a search that found the secret by
/// its value could only show it masked. Masked before a tool text is cut, so no cut leaves a
/// fragment unrecognised.
fn shown(text: String) -> String {
    match ambry_store::memory::secrets::mask_secrets(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(masked) => masked,
    }
}

/// `2026-05-12T12:00:00+02:00` → `2026-05-12T10:00:00.000Z`; `None` for what is not RFC 3339.
fn utc_millis(ts: &str) -> Option<Cow<'_, str>> {
    let parsed = chrono::DateTime::parse_from_rfc3339(ts.trim()).ok()?;
    // Most lines already carry this form; formatting it again is a large share of reading one.
    if is_utc_millis_shape(ts) {
        return Some(Cow::Borrowed(ts));
    }
    Some(Cow::Owned(
        parsed
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string(),
    ))
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` with seconds below 60 (a leap second is written differently).
fn is_utc_millis_shape(ts: &str) -> bool {
    let b = ts.as_bytes();
    b.len() == 24
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
        && b[17] < b'6'
}

pub(crate) fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A line kind taken from the file, made safe to use as a counter name.
pub(crate) fn kind_name(raw: &str) -> String {
    let ok = !raw.is_empty()
        && raw.len() <= MAX_KIND_CHARS
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.'));
    if ok {
        raw.to_string()
    } else {
        "unknown".to_string()
    }
}

/// Text of content blocks (`[{type: text|input_text|output_text, text}]`) or a plain string.
pub(crate) fn block_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<&str> = items
                .iter()
                .filter_map(|b| match b {
                    Value::String(s) => Some(s.as_str()),
                    _ => str_at(b, "text"),
                })
                .collect();
            parts.join("\n")
        }
        _ => String::new(),
    }
}

fn truncate(mut text: String, max: usize) -> String {
    if text.len() > max {
        let cut = text.floor_char_boundary(max);
        text.truncate(cut);
        text.push('…');
    }
    text
}

fn one_line(text: &str, max_chars: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max_chars {
        let mut s: String = flat.chars().take(max_chars - 1).collect();
        // At a word, unless the first word alone is that long.
        if let Some(space) = s.rfind(' ').filter(|&at| at > 0) {
            s.truncate(space);
        }
        s.push('…');
        s
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_short_line_and_agent_titles_win() {
        let mut s = SessionState::default();
        s.saw_prompt("fix   the\nlogin bug");
        s.saw_prompt("second prompt");
        assert_eq!(s.title(), Some("fix the login bug"));
        s.agent_title = Some("Login bug fixed".into());
        assert_eq!(s.title(), Some("Login bug fixed"));
        let mut s = SessionState::default();
        let long = "a prompt of many words that reads on ".repeat(8);
        s.saw_prompt(&long);
        assert_eq!(
            s.title(),
            Some(long.trim()),
            "a prompt of ~300 characters is not cut"
        );
        let mut s = SessionState::default();
        s.saw_prompt(&"word ".repeat(200));
        let title = s.title().unwrap();
        assert!(
            title.chars().count() <= MAX_TITLE_CHARS && title.ends_with("word…"),
            "{title}"
        );
    }

    #[test]
    fn agent_titles_are_one_line_without_control_characters() {
        let mut s = SessionState::default();
        s.set_agent_title("Kept model as \u{1b}[1mDefault\u{1b}[22m\n  and\u{7} more");
        assert_eq!(s.title(), Some("Kept model as Default and more"));
        s.set_agent_title("  \u{1b}[0m ");
        assert_eq!(
            s.title(),
            Some("Kept model as Default and more"),
            "a blank title keeps the one before"
        );
    }

    #[test]
    fn timestamps_widen_the_span_whatever_the_order() {
        let mut s = SessionState::default();
        s.saw_ts(Some("2026-01-02T00:00:00Z"));
        s.saw_ts(Some("2026-01-01T00:00:00Z"));
        s.saw_ts(Some("2026-01-03T01:00:00+02:00"));
        s.saw_ts(Some("2026-01-02T23:30:00.5-01:00"));
        s.saw_ts(Some("yesterday"));
        s.saw_ts(None);
        s.saw_ts(Some("2026-01-03T00:30:00.900Z"));
        s.saw_ts(Some("2026-13-03T00:30:00.900Z"));
        assert_eq!(s.first_ts.as_deref(), Some("2026-01-01T00:00:00.000Z"));
        assert_eq!(
            s.last_ts.as_deref(),
            Some("2026-01-03T00:30:00.900Z"),
            "an impossible month is not a timestamp"
        );
    }

    #[test]
    fn kinds_from_files_are_sanitized() {
        assert_eq!(kind_name("event_msg:token_count"), "event_msg:token_count");
        assert_eq!(kind_name("<script>"), "unknown");
        assert_eq!(kind_name(&"a".repeat(200)), "unknown");
    }

    #[test]
    fn tool_text_is_cut_on_a_char_boundary() {
        let mut b = LineBuilder::default();
        b.tool(true, "tool_result", &"é".repeat(MAX_TOOL_TEXT), None);
        let LineOutcome::Messages(m) = b.finish() else {
            panic!()
        };
        assert!(m[0].text.len() <= MAX_TOOL_TEXT + 3);
        let mut b = LineBuilder::default();
        b.tool(false, "tool_result", "x", None);
        assert_eq!(b.finish(), LineOutcome::Skipped("tool_result".into()));
    }
}
