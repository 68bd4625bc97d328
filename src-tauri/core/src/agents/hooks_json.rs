//! The `hooks` object shared by Claude Code's settings.json and Codex's hooks.json:
//! `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "…"}]}]}}`.
//!
//! Owns: adding Ambry's `UserPromptSubmit` command hook, recognizing it (also when it points at
//! an older path of the ambry binary), and removing exactly it plus the containers that only
//! held it.
//! Deliberately does not: touch any other event, group or handler.

use serde_json::{json, Map, Value};

use super::json_doc::kind_of;
use super::AgentError;

pub const EVENT: &str = "UserPromptSubmit";

/// True when `command` runs `ambry compose --hook <agent>` (whatever the binary's path).
pub fn is_ambry_hook(command: &str, agent_flag: &str) -> bool {
    let Some(words) = shlex::split(command) else {
        return false;
    };
    let [program, rest @ ..] = words.as_slice() else {
        return false;
    };
    let base = std::path::Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    base == "ambry"
        && rest
            .iter()
            .map(String::as_str)
            .eq(["compose", "--hook", agent_flag])
}

/// The command of Ambry's hook, if installed.
pub fn find(root: &Map<String, Value>, agent_flag: &str) -> Option<String> {
    handlers(root).find(|c| is_ambry_hook(c, agent_flag))
}

fn handlers(root: &Map<String, Value>) -> impl Iterator<Item = String> + '_ {
    root.get("hooks")
        .and_then(|h| h.get(EVENT))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter_map(|handler| {
            handler
                .get("command")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
}

/// Installs (or re-points) the hook; returns what it did, `None` when nothing changed.
pub fn install(
    root: &mut Map<String, Value>,
    path: &str,
    agent_flag: &str,
    command: &str,
) -> Result<Option<String>, AgentError> {
    let shape = |key: &str, expected: &'static str, found: &Value| AgentError::UnexpectedShape {
        path: path.to_string(),
        key: key.to_string(),
        expected,
        found: kind_of(found),
    };
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let found = hooks.clone();
    let hooks = hooks
        .as_object_mut()
        .ok_or_else(|| shape("hooks", "an object", &found))?;
    let event = hooks
        .entry(EVENT)
        .or_insert_with(|| Value::Array(Vec::new()));
    let found = event.clone();
    let groups = event
        .as_array_mut()
        .ok_or_else(|| shape(&format!("hooks.{EVENT}"), "an array", &found))?;
    for group in groups.iter_mut() {
        let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            continue;
        };
        for handler in list.iter_mut() {
            let Some(existing) = handler.get("command").and_then(Value::as_str) else {
                continue;
            };
            if !is_ambry_hook(existing, agent_flag) {
                continue;
            }
            if existing == command {
                return Ok(None);
            }
            let old = existing.to_string();
            handler["command"] = Value::String(command.to_string());
            return Ok(Some(format!(
                "{EVENT} hook now runs `{command}` (was `{old}`)"
            )));
        }
    }
    groups.push(json!({ "hooks": [{ "type": "command", "command": command }] }));
    Ok(Some(format!("added {EVENT} hook `{command}`")))
}

/// Removes Ambry's hook handlers, then any group, event list or `hooks` object left empty by
/// that removal. Returns what it did, `None` when there was nothing to remove.
pub fn remove(root: &mut Map<String, Value>, agent_flag: &str) -> Option<String> {
    let hooks = root.get_mut("hooks")?.as_object_mut()?;
    let groups = hooks.get_mut(EVENT)?.as_array_mut()?;
    let mut removed = Vec::new();
    groups.retain_mut(|group| {
        let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = list.len();
        list.retain(|h| {
            let ours = h
                .get("command")
                .and_then(Value::as_str)
                .is_some_and(|c| is_ambry_hook(c, agent_flag));
            if ours {
                removed.push(h["command"].as_str().unwrap_or_default().to_string());
            }
            !ours
        });
        !(before > 0 && list.is_empty())
    });
    if removed.is_empty() {
        return None;
    }
    if groups.is_empty() {
        hooks.shift_remove(EVENT);
    }
    if hooks.is_empty() {
        root.shift_remove("hooks");
    }
    Some(format!("removed {EVENT} hook `{}`", removed.join("`, `")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_the_hook_wherever_the_binary_lives() {
        assert!(is_ambry_hook("ambry compose --hook claude", "claude"));
        assert!(is_ambry_hook(
            "'/opt/my tools/ambry' compose --hook codex",
            "codex"
        ));
        assert!(!is_ambry_hook("ambry compose --hook claude", "codex"));
        assert!(!is_ambry_hook(
            "ambry-other compose --hook claude",
            "claude"
        ));
        assert!(!is_ambry_hook(
            "ambry compose --hook claude --top-k 3",
            "claude"
        ));
    }

    #[test]
    fn install_then_remove_leaves_other_handlers() {
        let mut root: Map<String, Value> = serde_json::from_str(
            r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "other"}]}], "Stop": []}}"#,
        )
        .unwrap();
        let before = root.clone();
        assert!(
            install(&mut root, "s.json", "claude", "ambry compose --hook claude")
                .unwrap()
                .is_some()
        );
        assert!(
            install(&mut root, "s.json", "claude", "ambry compose --hook claude")
                .unwrap()
                .is_none()
        );
        let moved = install(
            &mut root,
            "s.json",
            "claude",
            "/new/ambry compose --hook claude",
        )
        .unwrap()
        .unwrap();
        assert!(moved.contains("was `ambry compose"), "{moved}");
        assert_eq!(
            find(&root, "claude").as_deref(),
            Some("/new/ambry compose --hook claude")
        );
        assert!(remove(&mut root, "claude").is_some());
        assert_eq!(root, before);
        assert!(remove(&mut root, "claude").is_none());
    }

    #[test]
    fn refuses_a_hooks_key_of_another_shape() {
        let mut root: Map<String, Value> =
            serde_json::from_str(r#"{"hooks": {"UserPromptSubmit": "x"}}"#).unwrap();
        let err =
            install(&mut root, "s.json", "claude", "ambry compose --hook claude").unwrap_err();
        assert!(err.to_string().contains("hooks.UserPromptSubmit"), "{err}");
    }
}
