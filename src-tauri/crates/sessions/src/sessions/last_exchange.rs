//! The conversation a prompt is part of (DESIGN §5): the last exchange before it — the person's
//! previous prompt and the agent's reply — read from the tail of the transcript the agent's
//! `UserPromptSubmit` payload names, so "do the same for the worker" can be ranked with what
//! "the same" was about.
//!
//! Owns: the bounded tail read (the last `TAIL_BYTES` of the file, whatever its size, a
//! partial first line dropped), telling a Claude Code transcript from a Codex rollout, and
//! picking the exchange out of the lines the source parsers yield.
//! Deliberately does not: parse a format's fields (the `sources` parsers do), index anything,
//! or decide how the exchange weighs in the ranking (`rank::conversation` does).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::sources::line::{LineOutcome, Role, SessionState};
use super::sources::parse::parse_line;
use super::SourceKind;

/// How much of a transcript's end is read: a few exchanges, never the whole file (a long
/// session's transcript is tens of megabytes; a turn reads this much of it at most).
pub const TAIL_BYTES: u64 = 128 * 1024;
/// How much of the previous prompt and of the reply's end the exchange keeps.
pub const PROMPT_BYTES: usize = 1_000;
pub const REPLY_BYTES: usize = 600;

/// The last exchange before the current prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// The person's previous prompt (its first `PROMPT_BYTES`).
    pub user: String,
    /// The agent's reply to it, its text only (its last `REPLY_BYTES`); empty when none came.
    pub assistant: String,
}

impl Exchange {
    /// The exchange as one text to rank against.
    pub fn text(&self) -> String {
        if self.assistant.is_empty() {
            self.user.clone()
        } else {
            format!("{}\n{}", self.user, self.assistant)
        }
    }
}

/// The exchange before `prompt` in the transcript at `path`; `None` when the file cannot be
/// read as a regular file or holds no earlier prompt in its tail.
pub fn last_exchange(path: &Path, prompt: &str) -> Option<Exchange> {
    let tail = read_tail(path, TAIL_BYTES)?;
    exchange_in(&tail, prompt)
}

/// The last `limit` bytes of the regular file at `path`, from the first whole line in them.
fn read_tail(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let mut file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let start = meta.len().saturating_sub(limit);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut bytes = Vec::with_capacity(limit.min(meta.len()) as usize);
    file.take(limit).read_to_end(&mut bytes).ok()?;
    if start > 0 {
        // The first line is cut (or may be): it starts after its newline.
        let first = bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| i + 1);
        bytes.drain(..first);
    }
    Some(bytes)
}

/// The exchange in a transcript's tail.
fn exchange_in(tail: &[u8], prompt: &str) -> Option<Exchange> {
    // A Codex rollout wraps every line in an envelope with a `payload`; Claude Code's do not.
    let source = if memchr_str(tail, b"\"payload\"") {
        SourceKind::Codex
    } else {
        SourceKind::Claude
    };
    let mut state = SessionState::default();
    let mut messages: Vec<(Role, String)> = Vec::new();
    for raw in tail.split(|&b| b == b'\n') {
        if let Some(LineOutcome::Messages(m)) = parse_line(source, &mut state, raw, false) {
            messages.extend(
                m.into_iter()
                    .filter(|m| matches!(m.role, Role::User | Role::Assistant))
                    .map(|m| (m.role, m.text)),
            );
        }
    }
    // The agent may have written the prompt being submitted already: it is not its own context.
    if messages
        .last()
        .is_some_and(|(r, t)| *r == Role::User && t.trim() == prompt.trim())
    {
        messages.pop();
    }
    let at = messages.iter().rposition(|(r, _)| *r == Role::User)?;
    let reply: Vec<&str> = messages[at + 1..]
        .iter()
        .filter(|(r, _)| *r == Role::Assistant)
        .map(|(_, t)| t.as_str())
        .collect();
    Some(Exchange {
        user: head(messages[at].1.trim(), PROMPT_BYTES).to_string(),
        assistant: tail_of(reply.join("\n").trim(), REPLY_BYTES).to_string(),
    })
}

fn memchr_str(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn head(text: &str, max: usize) -> &str {
    let end = text.floor_char_boundary(text.len().min(max));
    &text[..end]
}

fn tail_of(text: &str, max: usize) -> &str {
    let start = text.ceil_char_boundary(text.len().saturating_sub(max));
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude_line(kind: &str, text: &str) -> String {
        serde_json::json!({
            "type": kind, "sessionId": "s", "timestamp": "2026-06-01T00:00:00Z",
            "message": {"role": kind, "content": [{"type": "text", "text": text}]},
        })
        .to_string()
    }

    fn codex_line(role: &str, text: &str) -> String {
        let block = if role == "user" {
            "input_text"
        } else {
            "output_text"
        };
        serde_json::json!({
            "timestamp": "2026-06-01T00:00:00Z", "type": "response_item",
            "payload": {"type": "message", "role": role, "content": [{"type": block, "text": text}]},
        })
        .to_string()
    }

    fn write(dir: &Path, name: &str, lines: &[String]) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    #[test]
    fn the_previous_prompt_and_its_reply_come_from_either_agents_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let claude = write(
            dir.path(),
            "c.jsonl",
            &[
                claude_line("user", "first question"),
                claude_line("assistant", "first answer"),
                claude_line("user", "bump the api's connection pool to 50"),
                claude_line("assistant", "Done: the api now uses a pool of 50."),
            ],
        );
        let want = Exchange {
            user: "bump the api's connection pool to 50".into(),
            assistant: "Done: the api now uses a pool of 50.".into(),
        };
        assert_eq!(
            last_exchange(&claude, "do the same for the worker"),
            Some(want.clone())
        );
        let codex = write(
            dir.path(),
            "r.jsonl",
            &[
                codex_line("user", "bump the api's connection pool to 50"),
                codex_line("assistant", "Done: the api now uses a pool of 50."),
                codex_line("user", "do the same for the worker"),
            ],
        );
        assert_eq!(
            last_exchange(&codex, "do the same for the worker"),
            Some(want),
            "the prompt being submitted, already written, is skipped"
        );
    }

    #[test]
    fn only_the_tail_is_read_and_nothing_is_made_up() {
        let dir = tempfile::tempdir().unwrap();
        let filler = claude_line("assistant", &"x".repeat(10_000));
        let mut lines = vec![claude_line("user", "an old prompt far back")];
        lines.extend(std::iter::repeat_n(filler, 40));
        let far = write(dir.path(), "far.jsonl", &lines);
        assert!(std::fs::metadata(&far).unwrap().len() > 3 * TAIL_BYTES);
        assert_eq!(
            last_exchange(&far, "next"),
            None,
            "the old prompt is past the tail"
        );
        lines.push(claude_line("user", "the latest prompt"));
        let near = write(dir.path(), "near.jsonl", &lines);
        assert_eq!(
            last_exchange(&near, "next").unwrap().user,
            "the latest prompt"
        );
        assert_eq!(last_exchange(&dir.path().join("missing.jsonl"), "x"), None);
        assert_eq!(
            last_exchange(dir.path(), "x"),
            None,
            "a directory is no transcript"
        );
        let long = write(
            dir.path(),
            "long.jsonl",
            &[claude_line("user", &"é".repeat(2_000))],
        );
        assert!(last_exchange(&long, "x").unwrap().user.len() <= PROMPT_BYTES);
    }
}
