//! Memories an agent had to fetch because the gate left them out (DESIGN §5, "What a memory is
//! for"): read from a session's transcript (its `memory_get` calls, through MCP or the CLI) and
//! the ledger's record of what that session was given, for memories that do not say `when`
//! they are needed. The prompt the agent was answering is the natural first `when` phrase, so
//! the finding carries it.
//!
//! Owns: recognising a fetch in a transcript (`mcp__ambry__memory_get`, Codex's names for the
//! same tool, `ambry memory get NAME` in a shell call), the prompt it answered, and deciding
//! whether a fetch was a miss (the session had not been given the body before it).
//! Deliberately does not: read the ledger, the index or the store (the workspace passes what
//! they hold), or write a `when` (the person does, from the finding).

use chrono::{DateTime, Utc};
use serde::Serialize;

use ambry_sessions::sessions::Transcript;

/// One fetch of a memory by an agent, with the prompt it was answering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fetch {
    /// The memory's name, as the agent asked for it.
    pub name: String,
    /// When the agent fetched it, as the transcript says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<DateTime<Utc>>,
    /// The person's last prompt before the fetch (trimmed to a phrase's length).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// A fetch the gate should have made unnecessary, in the session it happened in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MissedFetch {
    pub session_id: String,
    pub agent: String,
    #[serde(flatten)]
    pub fetch: Fetch,
}

/// The longest prompt offered as a `when` phrase; a longer one is cut at a word.
const PHRASE_MAX: usize = 120;

/// Every `memory_get` in `transcript`, oldest first, each with the last user prompt before it.
pub fn fetches(transcript: &Transcript) -> Vec<Fetch> {
    let mut prompt: Option<&str> = None;
    let mut out = Vec::new();
    for turn in &transcript.turns {
        match turn.role.as_str() {
            "user" => prompt = Some(turn.text.as_str()),
            "tool" => {
                if let Some(name) = fetched_name(&turn.text) {
                    out.push(Fetch {
                        name,
                        at: turn
                            .ts
                            .as_deref()
                            .and_then(|ts| DateTime::parse_from_rfc3339(ts).ok())
                            .map(|t| t.with_timezone(&Utc)),
                        prompt: prompt.and_then(phrase),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a fetch at `at` was a miss, given when the session was first given the memory's
/// body (`given`, `None` when never): a fetch before the body reached the context, or with no
/// time to tell, one in a session never given it.
pub fn is_miss(at: Option<DateTime<Utc>>, given: Option<DateTime<Utc>>) -> bool {
    match (at, given) {
        (_, None) => true,
        (Some(at), Some(given)) => at < given,
        (None, Some(_)) => false,
    }
}

/// The memory a tool turn (`<tool> <input JSON>`) fetched, when it is a `memory_get`: the MCP
/// tool under any prefix an agent gives it (`mcp__ambry__memory_get`, `ambry__memory_get`,
/// `ambry.memory_get`), or a shell call running `ambry memory get NAME`.
fn fetched_name(text: &str) -> Option<String> {
    let (tool, input) = text.split_once(' ')?;
    let input: serde_json::Value = serde_json::from_str(input.trim()).ok()?;
    let is_mcp_get =
        tool == "memory_get" || tool.ends_with("__memory_get") || tool.ends_with(".memory_get");
    if is_mcp_get {
        return input
            .get("name")
            .and_then(|n| n.as_str())
            .map(str::to_string);
    }
    let command = match input.get("command").or_else(|| input.get("cmd"))? {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(argv) => argv
            .iter()
            .filter_map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    shell_get(&command)
}

/// `NAME` of the first `ambry memory get NAME` in a command line (options skipped).
fn shell_get(command: &str) -> Option<String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.windows(3).position(|w| {
        (w[0] == "ambry" || w[0].ends_with("/ambry")) && w[1] == "memory" && w[2] == "get"
    })?;
    words[at + 3..]
        .iter()
        .take_while(|w| !matches!(**w, "&&" | "||" | ";" | "|"))
        .find(|w| !w.starts_with('-') && !matches!(**w, "user" | "project" | "team"))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"').to_string())
        .filter(|w| !w.is_empty())
}

/// A prompt as a `when` phrase: one line, at most `PHRASE_MAX` bytes cut at a word; `None`
/// for an empty one.
fn phrase(prompt: &str) -> Option<String> {
    let line = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() {
        return None;
    }
    if line.len() <= PHRASE_MAX {
        return Some(line);
    }
    let cut = line.floor_char_boundary(PHRASE_MAX);
    let head = &line[..cut];
    Some(match head.rfind(' ') {
        Some(space) if space > PHRASE_MAX / 2 => format!("{}…", &head[..space]),
        _ => format!("{head}…"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ambry_sessions::sessions::Turn;

    fn turn(role: &str, ts: &str, text: &str) -> Turn {
        Turn {
            ts: Some(ts.to_string()),
            role: role.to_string(),
            text: text.to_string(),
            label: None,
        }
    }

    fn transcript(turns: Vec<Turn>) -> Transcript {
        Transcript {
            meta: ambry_sessions::sessions::SessionMeta {
                session_id: "s1".into(),
                source: ambry_sessions::sessions::SourceKind::Claude,
                path: String::new(),
                cwd: None,
                title: None,
                model: None,
                first_ts: None,
                last_ts: None,
                messages: 0,
                source_removed_at: None,
            },
            turns,
        }
    }

    #[test]
    fn a_fetch_through_mcp_or_the_shell_is_found_with_the_prompt_it_answered() {
        let t = transcript(vec![
            turn(
                "user",
                "2026-05-01T10:00:00Z",
                "bump the  DB pool size\nfor the worker",
            ),
            turn("assistant", "2026-05-01T10:00:01Z", "Let me check memory."),
            turn(
                "tool",
                "2026-05-01T10:00:02Z",
                r#"mcp__ambry__memory_get {"name":"db-pool","scope":"project"}"#,
            ),
            turn(
                "tool",
                "2026-05-01T10:00:03Z",
                r#"{"name":"db-pool","body":"…"}"#,
            ),
            turn("user", "2026-05-01T10:05:00Z", "and the deploy?"),
            turn(
                "tool",
                "2026-05-01T10:05:02Z",
                r#"exec_command {"cmd":"ambry memory get --scope project deploy-steps && ls"}"#,
            ),
            turn(
                "tool",
                "2026-05-01T10:05:03Z",
                r#"Bash {"command":"ambry memory list"}"#,
            ),
            turn(
                "tool",
                "2026-05-01T10:05:04Z",
                r#"ambry.memory_get {"name":"release"}"#,
            ),
        ]);
        let found = fetches(&t);
        let names: Vec<_> = found.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["db-pool", "deploy-steps", "release"]);
        assert_eq!(
            found[0].prompt.as_deref(),
            Some("bump the DB pool size for the worker")
        );
        assert_eq!(found[1].prompt.as_deref(), Some("and the deploy?"));
        assert_eq!(
            found[0].at,
            Some("2026-05-01T10:00:02Z".parse::<DateTime<Utc>>().unwrap())
        );
    }

    #[test]
    fn a_fetch_is_a_miss_only_before_the_body_was_given() {
        let t = |s: &str| Some(s.parse::<DateTime<Utc>>().unwrap());
        assert!(is_miss(t("2026-05-01T10:00:00Z"), None));
        assert!(is_miss(
            t("2026-05-01T10:00:00Z"),
            t("2026-05-01T10:01:00Z")
        ));
        assert!(!is_miss(
            t("2026-05-01T10:02:00Z"),
            t("2026-05-01T10:01:00Z")
        ));
        assert!(is_miss(None, None));
        assert!(!is_miss(None, t("2026-05-01T10:01:00Z")));
    }

    #[test]
    fn a_long_prompt_is_cut_at_a_word() {
        let long = "word ".repeat(60);
        let p = phrase(&long).unwrap();
        assert!(p.len() <= PHRASE_MAX + '…'.len_utf8(), "{p}");
        assert!(p.ends_with("word…"), "{p}");
        assert_eq!(phrase("  \n "), None);
    }
}
