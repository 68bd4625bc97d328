//! Claude Code's user-wide MCP server list: `mcpServers` in `.claude.json`.
//!
//! Owns: registering `mcpServers.ambry` (`{"type": "stdio", "command", "args": [--home DIR]
//! "mcp"]}`), re-pointing an entry that runs Ambry from elsewhere (in place, shown in the
//! diff), refusing to replace an `ambry` entry that runs something else, and removing exactly
//! Ambry's entry (and `mcpServers` when a connect created it).
//! Deliberately does not: touch the rest of `.claude.json` (Claude Code keeps its own state
//! there: projects, tips, tokens); only the spans Ambry owns change.

use serde_json::{json, Value};

use super::ambry_command::{is_ambry, AmbryCommand};
use super::json_edit::{kind_of, Edited, JsonText, Step};
use super::AgentError;

pub const SERVER: &str = "ambry";

/// The registered server's command and arguments, when `mcpServers.ambry` exists.
pub fn find_server(root: &Value) -> Option<(String, Vec<String>)> {
    let server = root.get("mcpServers")?.get(SERVER)?;
    let command = server.get("command")?.as_str()?.to_string();
    let args = server
        .get("args")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Some((command, args))
}

/// True when the `ambry` entry runs Ambry's MCP server (whatever the binary's path or home).
fn is_ours(root: &Value) -> bool {
    find_server(root).is_some_and(|(c, a)| is_ambry(&c, &a, &["mcp"]))
}

/// Registers (or re-points) the server.
pub fn install_server(
    path: &std::path::Path,
    text: Option<&str>,
    ambry: &AmbryCommand,
) -> Result<Edited, AgentError> {
    let doc = JsonText::parse(path, text)?;
    let args = ambry.server_args();
    let shown_command = format!("{} {}", ambry.program, args.join(" "));
    let wanted = json!({ "type": "stdio", "command": ambry.program, "args": args });
    let mut out = Edited::default();
    match doc.get(&[Step::Key("mcpServers")]) {
        None => {
            out.created.push("mcpServers".into());
            out.text = doc.with_member(&[], "mcpServers", &json!({ SERVER: wanted }));
        }
        Some(servers) if !servers.is_object() => {
            return Err(AgentError::UnexpectedShape {
                path: path.display().to_string(),
                key: "mcpServers".into(),
                expected: "an object",
                found: kind_of(servers),
            })
        }
        Some(servers) => match servers.get(SERVER) {
            None => out.text = doc.with_member(&[Step::Key("mcpServers")], SERVER, &wanted),
            Some(_) if !is_ours(&doc.value) => {
                return Err(AgentError::ForeignEntry {
                    path: path.display().to_string(),
                    key: format!("mcpServers.{SERVER}"),
                })
            }
            Some(existing) => {
                let (command, old_args) = find_server(&doc.value).expect("is_ours found it");
                if command == ambry.program && old_args == args {
                    out.text = doc.text.clone();
                    return Ok(out);
                }
                // Keys a person added (env, timeouts) stay; only command and args change.
                let at = [Step::Key("mcpServers"), Step::Key(SERVER)];
                let text = doc.with_value(
                    &[&at[..], &[Step::Key("command")]].concat(),
                    &json!(ambry.program),
                );
                let doc2 = JsonText::parse(path, Some(&text))?;
                out.text = if existing.get("args").is_some() {
                    doc2.with_value(&[&at[..], &[Step::Key("args")]].concat(), &json!(args))
                } else {
                    doc2.with_member(&at, "args", &json!(args))
                };
                out.summary.push(format!(
                    "mcpServers.{SERVER} now runs `{shown_command}` (was `{command} {}`)",
                    old_args.join(" ")
                ));
                return Ok(out);
            }
        },
    }
    out.summary.push(format!(
        "registered MCP server mcpServers.{SERVER} (`{shown_command}`)"
    ));
    Ok(out)
}

/// Removes Ambry's `mcpServers.ambry`, and `mcpServers` when it is left empty and a connect
/// created it (or, without a record, when this removal emptied it). An `ambry` entry that runs
/// something else is left alone.
pub fn remove_server(
    path: &std::path::Path,
    text: Option<&str>,
    created: Option<&[String]>,
) -> Result<Edited, AgentError> {
    let doc = JsonText::parse(path, text)?;
    let mut out = Edited {
        text: doc.text.clone(),
        ..Edited::default()
    };
    if !is_ours(&doc.value) {
        return Ok(out);
    }
    let next = doc.without(&[Step::Key("mcpServers"), Step::Key(SERVER)]);
    let doc = JsonText::parse(path, Some(&next))?;
    out.summary
        .push(format!("removed MCP server mcpServers.{SERVER}"));
    let empty = doc
        .get(&[Step::Key("mcpServers")])
        .and_then(Value::as_object)
        .is_some_and(serde_json::Map::is_empty);
    let ours = created.is_none_or(|c| c.iter().any(|k| k == "mcpServers"));
    out.text = if empty && ours {
        doc.without(&[Step::Key("mcpServers")])
    } else {
        doc.text
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const STATE: &str = "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  },\n  \"z\": 1\n}";

    #[test]
    fn keeps_other_servers_and_every_byte() {
        let ambry = AmbryCommand::new("/bin/ambry").with_home(Some("/data/mem".into()));
        let added = install_server(Path::new("c.json"), Some(STATE), &ambry).unwrap();
        assert!(added.created.is_empty());
        let doc = JsonText::parse(Path::new("c.json"), Some(&added.text)).unwrap();
        assert_eq!(
            find_server(&doc.value),
            Some((
                "/bin/ambry".into(),
                vec!["--home".into(), "/data/mem".into(), "mcp".into()]
            ))
        );
        let again = install_server(Path::new("c.json"), Some(&added.text), &ambry).unwrap();
        assert!(again.summary.is_empty() && again.text == added.text);
        let removed = remove_server(Path::new("c.json"), Some(&added.text), Some(&[])).unwrap();
        assert_eq!(removed.text, STATE);
    }

    #[test]
    fn an_entry_that_runs_something_else_is_refused_and_kept() {
        let text = r#"{"mcpServers": {"ambry": {"command": "npx", "args": ["ambry-mcp"]}}}"#;
        let err = install_server(
            Path::new("c.json"),
            Some(text),
            &AmbryCommand::new("/bin/ambry"),
        )
        .unwrap_err();
        assert!(matches!(err, AgentError::ForeignEntry { .. }), "{err}");
        let kept = remove_server(Path::new("c.json"), Some(text), None).unwrap();
        assert_eq!(kept.text, text);
        assert!(kept.summary.is_empty());
    }

    #[test]
    fn a_moved_binary_is_repointed_in_place_keeping_added_keys() {
        let text = r#"{"mcpServers": {"ambry": {"type": "stdio", "command": "/old/ambry", "args": ["mcp"], "env": {"X": "1"}}}}"#;
        let moved = install_server(
            Path::new("c.json"),
            Some(text),
            &AmbryCommand::new("/bin/ambry"),
        )
        .unwrap();
        assert_eq!(
            moved.text,
            r#"{"mcpServers": {"ambry": {"type": "stdio", "command": "/bin/ambry", "args": ["mcp"], "env": {"X": "1"}}}}"#
        );
        assert!(
            moved.summary[0].contains("was `/old/ambry mcp`"),
            "{:?}",
            moved.summary
        );
    }
}
