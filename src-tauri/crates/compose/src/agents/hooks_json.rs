//! The `hooks` object shared by Claude Code's settings.json and Codex's hooks.json:
//! `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "…", "timeout": 10}]}],
//! "UserPromptSubmit": [ …the same… ]}}`.
//!
//! Owns: adding Ambry's three command hooks (`SessionStart` for the once-per-context block,
//! `UserPromptSubmit` for each turn, `PreToolUse` for the memories' rules; one command, compose
//! tells them apart by
//! `hook_event_name`), each with a timeout both agents honour; recognizing them (also when they
//! point at an older path of the binary or another home); removing exactly them, plus the
//! containers a connect created for them.
//! Deliberately does not: touch any other event, group or handler, or write the file.

use serde_json::{json, Value};

use super::ambry_command::is_ambry_hook;
use super::json_edit::{kind_of, Edited, JsonText, Step};
use super::{Agent, AgentError};

/// The events Ambry's hook answers, in the order they are added (`PreToolUse`: every tool call
/// is checked against the memories' rules, DESIGN §16).
pub const EVENTS: [&str; 3] = ["SessionStart", "UserPromptSubmit", "PreToolUse"];

/// Seconds an agent waits for the hook before giving up on it. Compose answers within 2 s by
/// design; the margin covers a cold start of the binary on a busy machine.
pub const TIMEOUT_SECS: u64 = 10;

/// One of Ambry's handlers as found in the file, with what an agent's trust hash covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundHook {
    pub event: &'static str,
    pub group: usize,
    pub handler: usize,
    pub command: String,
    pub timeout: Option<u64>,
    pub matcher: Option<String>,
    pub is_async: bool,
    pub status_message: Option<String>,
}

/// Every Ambry handler in the file, by event, group and handler position.
pub fn find(doc: &JsonText, agent: Agent) -> Vec<FoundHook> {
    let mut found = Vec::new();
    for event in EVENTS {
        let Some(groups) = doc
            .get(&[Step::Key("hooks"), Step::Key(event)])
            .and_then(Value::as_array)
        else {
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
                continue;
            };
            for (h, handler) in handlers.iter().enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if handler.get("type").and_then(Value::as_str) != Some("command")
                    || !is_ambry_hook(command, agent)
                {
                    continue;
                }
                found.push(FoundHook {
                    event,
                    group: g,
                    handler: h,
                    command: command.to_string(),
                    timeout: handler.get("timeout").and_then(Value::as_u64),
                    matcher: group
                        .get("matcher")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    is_async: handler
                        .get("async")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                    status_message: handler
                        .get("statusMessage")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                });
            }
        }
    }
    found
}

fn handler(command: &str) -> Value {
    json!({ "type": "command", "command": command, "timeout": TIMEOUT_SECS })
}

/// Adds (or re-points) Ambry's hooks in `text`.
pub fn install(
    path: &std::path::Path,
    text: Option<&str>,
    agent: Agent,
    command: &str,
) -> Result<Edited, AgentError> {
    let shown = path.display().to_string();
    let shape = |key: String, expected: &'static str, found: &Value| AgentError::UnexpectedShape {
        path: shown.clone(),
        key,
        expected,
        found: kind_of(found),
    };
    let mut doc = JsonText::parse(path, text)?;
    let mut out = Edited::default();
    for event in EVENTS {
        let group = json!({ "hooks": [handler(command)] });
        let next = match doc.get(&[Step::Key("hooks")]) {
            None => {
                out.created.push("hooks".into());
                out.created.push(format!("hooks/{event}"));
                doc.with_member(&[], "hooks", &json!({ event: [group] }))
            }
            Some(hooks) if !hooks.is_object() => {
                return Err(shape("hooks".into(), "an object", hooks))
            }
            Some(hooks) => match hooks.get(event) {
                None => {
                    out.created.push(format!("hooks/{event}"));
                    doc.with_member(&[Step::Key("hooks")], event, &json!([group]))
                }
                Some(list) if !list.is_array() => {
                    return Err(shape(format!("hooks.{event}"), "an array", list))
                }
                Some(_) => {
                    let ours = find(&doc, agent).into_iter().find(|h| h.event == event);
                    match ours {
                        None => doc.with_item(&[Step::Key("hooks"), Step::Key(event)], &group),
                        Some(found) => {
                            let edited = repoint(&doc, &found, command)?;
                            if let Some(text) = edited {
                                out.summary.push(format!(
                                    "{event} hook now runs `{command}` with a {TIMEOUT_SECS} s timeout (was `{}`{})",
                                    found.command,
                                    found.timeout.map(|t| format!(", {t} s")).unwrap_or_default()
                                ));
                                doc = JsonText::parse(path, Some(&text))?;
                            }
                            continue;
                        }
                    }
                }
            },
        };
        out.summary.push(format!(
            "added {event} hook `{command}` ({TIMEOUT_SECS} s timeout)"
        ));
        doc = JsonText::parse(path, Some(&next))?;
    }
    out.text = doc.text;
    Ok(out)
}

/// Sets an existing Ambry handler's command and timeout; `None` when both already match.
fn repoint(doc: &JsonText, found: &FoundHook, command: &str) -> Result<Option<String>, AgentError> {
    let at = [
        Step::Key("hooks"),
        Step::Key(found.event),
        Step::Index(found.group),
        Step::Key("hooks"),
        Step::Index(found.handler),
    ];
    let mut text = doc.text.clone();
    let mut changed = false;
    if found.command != command {
        text = doc.with_value(
            &[&at[..], &[Step::Key("command")]].concat(),
            &json!(command),
        );
        changed = true;
    }
    if found.timeout != Some(TIMEOUT_SECS) {
        let current = JsonText::parse(std::path::Path::new(""), Some(&text))?;
        let timeout = [&at[..], &[Step::Key("timeout")]].concat();
        text = if current.get(&timeout).is_some() {
            current.with_value(&timeout, &json!(TIMEOUT_SECS))
        } else {
            current.with_member(&at, "timeout", &json!(TIMEOUT_SECS))
        };
        changed = true;
    }
    Ok(changed.then_some(text))
}

/// Removes Ambry's handlers (a group that held only one goes with it), then the containers a
/// connect recorded as created (`created`) once they are empty. Without a record (a file an
/// earlier release connected), containers this removal emptied go too.
pub fn remove(
    path: &std::path::Path,
    text: Option<&str>,
    agent: Agent,
    created: Option<&[String]>,
) -> Result<Edited, AgentError> {
    let mut doc = JsonText::parse(path, text)?;
    let mut out = Edited::default();
    let mut emptied = Vec::new();
    while let Some(found) = find(&doc, agent).pop() {
        let group_path = [
            Step::Key("hooks"),
            Step::Key(found.event),
            Step::Index(found.group),
        ];
        let siblings = doc
            .get(&[&group_path[..], &[Step::Key("hooks")]].concat())
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let next = if siblings <= 1 {
            doc.without(&group_path)
        } else {
            doc.without(
                &[
                    &group_path[..],
                    &[Step::Key("hooks"), Step::Index(found.handler)],
                ]
                .concat(),
            )
        };
        out.summary
            .push(format!("removed {} hook `{}`", found.event, found.command));
        doc = JsonText::parse(path, Some(&next))?;
        if doc
            .get(&[Step::Key("hooks"), Step::Key(found.event)])
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            emptied.push(format!("hooks/{}", found.event));
        }
    }
    let ours = |key: &str| match created {
        Some(list) => list.iter().any(|c| c == key),
        None => emptied.iter().any(|e| e == key) || (key == "hooks" && !emptied.is_empty()),
    };
    for event in EVENTS {
        let at = [Step::Key("hooks"), Step::Key(event)];
        let empty = doc
            .get(&at)
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty);
        if empty && ours(&format!("hooks/{event}")) {
            let next = doc.without(&at);
            doc = JsonText::parse(path, Some(&next))?;
        }
    }
    let empty = doc
        .get(&[Step::Key("hooks")])
        .and_then(Value::as_object)
        .is_some_and(serde_json::Map::is_empty);
    if empty && ours("hooks") {
        let next = doc.without(&[Step::Key("hooks")]);
        doc = JsonText::parse(path, Some(&next))?;
    }
    out.text = doc.text;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const CMD: &str = "/bin/ambry compose --hook claude";

    fn install_text(text: &str, command: &str) -> Edited {
        install(Path::new("s.json"), Some(text), Agent::Claude, command).unwrap()
    }

    #[test]
    fn adds_every_event_with_a_timeout_and_removes_exactly_them() {
        let original = "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"UserPromptSubmit\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"other\"}]}\n    ],\n    \"Stop\": []\n  }\n}\n";
        let added = install_text(original, CMD);
        assert_eq!(added.summary.len(), 3, "{:?}", added.summary);
        assert_eq!(added.created, ["hooks/SessionStart", "hooks/PreToolUse"]);
        let doc = JsonText::parse(Path::new("s.json"), Some(&added.text)).unwrap();
        let found = find(&doc, Agent::Claude);
        assert_eq!(found.len(), 3);
        assert_eq!(
            (found[0].event, found[0].group, found[0].timeout),
            ("SessionStart", 0, Some(TIMEOUT_SECS))
        );
        assert_eq!((found[1].event, found[1].group), ("UserPromptSubmit", 1));
        assert_eq!((found[2].event, found[2].group), ("PreToolUse", 0));
        let again = install_text(&added.text, CMD);
        assert!(again.summary.is_empty() && again.text == added.text);
        let removed = remove(
            Path::new("s.json"),
            Some(&added.text),
            Agent::Claude,
            Some(&added.created),
        )
        .unwrap();
        assert_eq!(removed.text, original);
    }

    #[test]
    fn empty_containers_the_person_had_stay() {
        for original in [
            "{\n  \"hooks\": {}\n}\n",
            "{\"hooks\":{\"SessionStart\":[]}}",
        ] {
            let added = install_text(original, CMD);
            let removed = remove(
                Path::new("s.json"),
                Some(&added.text),
                Agent::Claude,
                Some(&added.created),
            )
            .unwrap();
            assert_eq!(removed.text, original);
        }
        let created = install(Path::new("s.json"), None, Agent::Claude, CMD).unwrap();
        assert_eq!(
            created.created,
            [
                "hooks",
                "hooks/SessionStart",
                "hooks/UserPromptSubmit",
                "hooks/PreToolUse"
            ]
        );
        let removed = remove(
            Path::new("s.json"),
            Some(&created.text),
            Agent::Claude,
            Some(&created.created),
        )
        .unwrap();
        assert_eq!(
            removed.text, "{}\n",
            "an empty object: the file connect created can go"
        );
    }

    #[test]
    fn repoints_a_moved_binary_and_adds_the_timeout_in_place() {
        let old = "{\"hooks\": {\"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/old/ambry compose --hook claude\"}]}]}}";
        let moved = install_text(old, CMD);
        assert!(
            moved.summary[1].contains("was `/old/ambry"),
            "{:?}",
            moved.summary
        );
        assert!(
            moved.text.contains(&format!(
                "{{\"type\": \"command\", \"command\": \"{CMD}\", \"timeout\": 10}}"
            )),
            "{}",
            moved.text
        );
    }

    #[test]
    fn refuses_a_hooks_key_of_another_shape() {
        let err = install(
            Path::new("s.json"),
            Some(r#"{"hooks": {"UserPromptSubmit": "x"}}"#),
            Agent::Claude,
            CMD,
        )
        .unwrap_err();
        assert!(err.to_string().contains("hooks.UserPromptSubmit"), "{err}");
    }
}
