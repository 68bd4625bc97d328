//! Claude Code's user-wide MCP server list: `mcpServers` in `.claude.json`.
//!
//! Owns: registering `mcpServers.ambry` (`{"type": "stdio", "command", "args": ["mcp"]}`),
//! reading it back, and removing exactly it (and `mcpServers` when it held nothing else).
//! Deliberately does not: touch the rest of `.claude.json` (Claude Code keeps its own state
//! there: projects, tips, tokens); `json_doc` writes it back in its own layout.

use serde_json::{json, Map, Value};

use super::json_doc::kind_of;
use super::AgentError;

pub const SERVER: &str = "ambry";

/// The registered server's command, when `mcpServers.ambry` exists.
pub fn find_server(root: &Map<String, Value>) -> Option<(String, Vec<String>)> {
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

/// Registers the server; `None` when it was already registered exactly so.
pub fn install_server(
    root: &mut Map<String, Value>,
    path: &str,
    program: &str,
) -> Result<Option<String>, AgentError> {
    let servers = root
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let found = kind_of(servers);
    let servers = servers
        .as_object_mut()
        .ok_or_else(|| AgentError::UnexpectedShape {
            path: path.to_string(),
            key: "mcpServers".into(),
            expected: "an object",
            found,
        })?;
    let wanted = json!({ "type": "stdio", "command": program, "args": ["mcp"] });
    match servers.get_mut(SERVER) {
        Some(existing) if is_current(existing, program) => Ok(None),
        Some(existing) => {
            // Keep keys a person added (env, timeouts); set only what Ambry owns.
            if let Some(obj) = existing.as_object_mut() {
                obj.insert("type".into(), json!("stdio"));
                obj.insert("command".into(), json!(program));
                obj.insert("args".into(), json!(["mcp"]));
            } else {
                *existing = wanted;
            }
            Ok(Some(format!(
                "mcpServers.{SERVER} now runs `{program} mcp`"
            )))
        }
        None => {
            servers.insert(SERVER.into(), wanted);
            Ok(Some(format!(
                "registered MCP server mcpServers.{SERVER} (`{program} mcp`)"
            )))
        }
    }
}

fn is_current(server: &Value, program: &str) -> bool {
    server.get("command").and_then(Value::as_str) == Some(program)
        && server.get("args") == Some(&json!(["mcp"]))
        && server.get("type").is_none_or(|t| t == "stdio")
}

/// Removes `mcpServers.ambry`, and `mcpServers` when that leaves it empty.
pub fn remove_server(root: &mut Map<String, Value>) -> Option<String> {
    let servers = root.get_mut("mcpServers")?.as_object_mut()?;
    servers.shift_remove(SERVER)?;
    if servers.is_empty() {
        root.shift_remove("mcpServers");
    }
    Some(format!("removed MCP server mcpServers.{SERVER}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_other_servers_and_their_order() {
        let mut root: Map<String, Value> = serde_json::from_str(
            r#"{"numStartups": 3, "mcpServers": {"a": {"command": "x"}}, "z": 1}"#,
        )
        .unwrap();
        let before = serde_json::to_string(&root).unwrap();
        assert!(install_server(&mut root, "c.json", "/bin/ambry")
            .unwrap()
            .is_some());
        assert!(install_server(&mut root, "c.json", "/bin/ambry")
            .unwrap()
            .is_none());
        assert_eq!(
            find_server(&root),
            Some(("/bin/ambry".into(), vec!["mcp".into()]))
        );
        assert!(remove_server(&mut root).is_some());
        assert_eq!(serde_json::to_string(&root).unwrap(), before);
    }
}
