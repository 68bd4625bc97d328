//! A tool call as a rule reads it: the tool's name as the agent reports it to `PreToolUse`,
//! and its input as one text.
//!
//! Owns: turning a hook payload's `tool_input` (and a transcript's recorded call) into that
//! text — a shell call's command line as typed; any other input's string fields, one per line —
//! bounded in size, and naming Codex's shell tools `Bash`, as Codex reports them to its hooks.
//! Deliberately does not: match (see `check`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most of a call's input a rule reads (a whole file written by `Write` is far larger than
/// any command; a rule is about what the call does, which its start says).
pub const INPUT_READ_MAX: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// `Bash`, `Edit`, `Write`, … as the agent names it.
    pub tool: String,
    /// The input as text: a shell command's line, or the input's string fields one per line.
    pub input: String,
}

impl ToolCall {
    /// The call a `PreToolUse` payload describes.
    pub fn from_hook(tool: &str, input: &Value) -> ToolCall {
        ToolCall {
            tool: tool.to_string(),
            input: bounded(input_text(input)),
        }
    }

    /// A call as a transcript recorded it (a tool turn reads `<name> <input JSON>`): Claude
    /// Code's `Bash {"command": …}`, Codex's `exec_command {"cmd": …}` or `shell {"command": […]}`.
    /// `None` for a turn that is not a call (a tool's output).
    pub fn from_transcript(text: &str) -> Option<ToolCall> {
        let (name, rest) = text.split_once(' ').unwrap_or((text, ""));
        let looks_like_a_name = !name.is_empty()
            && name.len() <= 100
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
        let rest = rest.trim_start();
        if !looks_like_a_name || !rest.starts_with('{') {
            return None;
        }
        let tool = match name {
            // Codex runs shell commands through these and reports them to hooks as `Bash`.
            "exec_command" | "shell" | "local_shell" | "local_shell_call" | "shell_command" => {
                "Bash"
            }
            other => other,
        };
        let input = match serde_json::from_str::<Value>(rest) {
            Ok(value) => input_text(&value),
            // Cut when the transcript was indexed: the text as far as it goes.
            Err(_) => rest.to_string(),
        };
        Some(ToolCall {
            tool: tool.to_string(),
            input: bounded(input),
        })
    }
}

/// A shell call's command line (`command` or `cmd`, a string or an argv whose last element is
/// the script of `bash -lc …`); otherwise every string in the input, one per line.
fn input_text(input: &Value) -> String {
    for key in ["command", "cmd"] {
        match input.get(key) {
            Some(Value::String(s)) => return s.clone(),
            Some(Value::Array(argv)) => {
                let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
                return match words.as_slice() {
                    [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') => {
                        script.to_string()
                    }
                    _ => words.join(" "),
                };
            }
            _ => {}
        }
    }
    let mut lines = Vec::new();
    strings(input, &mut lines);
    lines.join("\n")
}

fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn bounded(mut text: String) -> String {
    if text.len() > INPUT_READ_MAX {
        let cut = text.floor_char_boundary(INPUT_READ_MAX);
        text.truncate(cut);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_agents_shell_calls_read_as_their_command_line() {
        let claude = ToolCall::from_hook(
            "Bash",
            &json!({"command": "npm install left-pad", "description": "add a dep"}),
        );
        assert_eq!(claude.input, "npm install left-pad");
        let codex = ToolCall::from_hook("Bash", &json!({"command": "npm i"}));
        assert_eq!(codex.input, "npm i");
        let edit = ToolCall::from_hook(
            "Edit",
            &json!({"file_path": "/r/Cargo.toml", "old_string": "a", "new_string": "b"}),
        );
        assert_eq!(edit.input.lines().count(), 3);
        assert!(edit.input.contains("/r/Cargo.toml"));
        let huge = ToolCall::from_hook("Write", &json!({"content": "é".repeat(INPUT_READ_MAX)}));
        assert!(huge.input.len() <= INPUT_READ_MAX);
    }

    #[test]
    fn transcript_calls_read_as_the_hook_would_see_them() {
        let c = ToolCall::from_transcript(
            r#"Bash {"command":"cargo test --release","description":"x"}"#,
        )
        .unwrap();
        assert_eq!(
            (c.tool.as_str(), c.input.as_str()),
            ("Bash", "cargo test --release")
        );
        let c = ToolCall::from_transcript(r#"exec_command {"cmd":"npm install"}"#).unwrap();
        assert_eq!((c.tool.as_str(), c.input.as_str()), ("Bash", "npm install"));
        let c =
            ToolCall::from_transcript(r#"shell {"command":["bash","-lc","yarn add x"]}"#).unwrap();
        assert_eq!((c.tool.as_str(), c.input.as_str()), ("Bash", "yarn add x"));
        let cut = ToolCall::from_transcript(r#"Bash {"command":"npm install a b c d e"#).unwrap();
        assert!(cut.input.contains("npm install"));
        assert_eq!(ToolCall::from_transcript("3 passed; 0 failed"), None);
        assert_eq!(ToolCall::from_transcript("error: {oops}"), None);
    }
}
