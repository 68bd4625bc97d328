//! Codex's `config.toml`: the `[mcp_servers.ambry]` table and the hooks feature switch.
//!
//! Owns: editing the file with `toml_edit`, so comments, blank lines and key order of
//! everything else survive; registering and removing `[mcp_servers.ambry]`
//! (`command`, `args = ["mcp"]`); reading the person's hooks switch (`[features] hooks`, or its
//! deprecated alias `codex_hooks`); removing the `codex_hooks = true` that earlier releases of
//! `ambry connect codex` added (recognized by its mark).
//! Deliberately does not: write hooks (they go to hooks.json, see `hooks_json`), or turn hooks
//! on: Codex runs hooks by default, and `codex_hooks` is a deprecated alias Codex warns about.

use toml_edit::{value, Array, DocumentMut, Item, Table};

use super::AgentError;

pub const SERVER: &str = "ambry";
/// The trailing comment that marks the feature switch earlier releases of connect added.
const MARK: &str = " # added by `ambry connect codex`; `ambry disconnect codex` removes it";

pub fn parse(path: &std::path::Path, text: Option<&str>) -> Result<DocumentMut, AgentError> {
    text.unwrap_or("")
        .parse::<DocumentMut>()
        .map_err(|e| AgentError::Unparseable {
            path: path.display().to_string(),
            reason: e.to_string().trim().to_string(),
        })
}

/// The registered server's command and args, when `[mcp_servers.ambry]` exists.
pub fn find_server(doc: &DocumentMut) -> Option<(String, Vec<String>)> {
    let server = doc.get("mcp_servers")?.get(SERVER)?;
    let command = server.get("command")?.as_str()?.to_string();
    let args = server
        .get("args")
        .and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Some((command, args))
}

/// Registers the server; `None` when it was already registered exactly so.
pub fn install_server(
    doc: &mut DocumentMut,
    path: &str,
    program: &str,
) -> Result<Option<String>, AgentError> {
    if find_server(doc).is_some_and(|(c, a)| c == program && a == ["mcp"]) {
        return Ok(None);
    }
    let shape = |key: &str| AgentError::UnexpectedShape {
        path: path.to_string(),
        key: key.to_string(),
        expected: "a table",
        found: "something else".into(),
    };
    let root = doc.as_table_mut();
    if !root.contains_key("mcp_servers") {
        let mut servers = Table::new();
        servers.set_implicit(true);
        root.insert("mcp_servers", Item::Table(servers));
    }
    let servers = root["mcp_servers"]
        .as_table_like_mut()
        .ok_or_else(|| shape("mcp_servers"))?;
    let existed = servers.contains_key(SERVER);
    if !existed {
        servers.insert(SERVER, Item::Table(Table::new()));
    }
    let server = servers
        .get_mut(SERVER)
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| shape("mcp_servers.ambry"))?;
    server.insert("command", value(program));
    let mut args = Array::new();
    args.push("mcp");
    server.insert("args", value(args));
    Ok(Some(if existed {
        format!("[mcp_servers.{SERVER}] now runs `{program} mcp`")
    } else {
        format!("registered MCP server [mcp_servers.{SERVER}] (`{program} mcp`)")
    }))
}

/// Removes `[mcp_servers.ambry]`, and `mcp_servers` when it held nothing else.
pub fn remove_server(doc: &mut DocumentMut) -> Option<String> {
    let root = doc.as_table_mut();
    let servers = root.get_mut("mcp_servers")?.as_table_like_mut()?;
    servers.remove(SERVER)?;
    if servers.is_empty() {
        root.remove("mcp_servers");
    }
    Some(format!("removed MCP server [mcp_servers.{SERVER}]"))
}

/// The person's hooks switch: `Some(false)` when they turned hooks off.
pub fn hooks_switch(doc: &DocumentMut) -> Option<bool> {
    let features = doc.get("features")?;
    features
        .get("hooks")
        .or_else(|| features.get("codex_hooks"))
        .and_then(Item::as_bool)
}

/// Removes the switch an earlier `ambry connect codex` added (recognized by its mark), and
/// `[features]` when that leaves it empty.
pub fn remove_enabled_hooks(doc: &mut DocumentMut) -> Option<String> {
    let root = doc.as_table_mut();
    let features = root.get_mut("features")?.as_table_like_mut()?;
    let marked = features
        .get("codex_hooks")
        .and_then(Item::as_value)
        .and_then(|v| v.decor().suffix())
        .and_then(|s| s.as_str())
        .is_some_and(|s| s.trim() == MARK.trim());
    if !marked {
        return None;
    }
    features.remove("codex_hooks");
    if features.is_empty() {
        root.remove("features");
    }
    Some("removed [features] codex_hooks (added by connect)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGINAL: &str = "# my codex setup\nmodel = \"o4\" # fast\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs\"] # pinned\n\n[profiles.work]\nmodel = \"x\"\n";

    #[test]
    fn round_trip_keeps_every_byte() {
        let mut doc = parse(std::path::Path::new("c.toml"), Some(ORIGINAL)).unwrap();
        assert!(install_server(&mut doc, "c.toml", "/bin/ambry")
            .unwrap()
            .is_some());
        let connected = doc.to_string();
        let mut kept = connected
            .lines()
            .filter(|l| !l.is_empty() && ORIGINAL.lines().any(|o| o == *l));
        assert!(
            ORIGINAL
                .lines()
                .filter(|o| !o.is_empty())
                .all(|o| kept.next() == Some(o)),
            "every original line stays, in order:\n{connected}"
        );
        assert!(
            connected.contains("[mcp_servers.ambry]\ncommand = \"/bin/ambry\"\nargs = [\"mcp\"]"),
            "{connected}"
        );
        assert!(
            !connected.contains("[features]"),
            "hooks are on by default; no switch is added:\n{connected}"
        );
        let mut again = parse(std::path::Path::new("c.toml"), Some(&connected)).unwrap();
        assert!(install_server(&mut again, "c.toml", "/bin/ambry")
            .unwrap()
            .is_none());
        assert!(remove_server(&mut again).is_some());
        assert!(remove_enabled_hooks(&mut again).is_none());
        assert_eq!(again.to_string(), ORIGINAL);
    }

    #[test]
    fn disconnect_removes_the_switch_an_earlier_connect_added() {
        let text = format!("model = \"o4\"\n\n[features]\ncodex_hooks = true{MARK}\n");
        let mut doc = parse(std::path::Path::new("c.toml"), Some(&text)).unwrap();
        assert!(remove_enabled_hooks(&mut doc).is_some());
        assert_eq!(doc.to_string(), "model = \"o4\"\n");
    }

    #[test]
    fn a_switch_the_person_set_is_theirs() {
        let text = "[features]\ncodex_hooks = true\n";
        let mut doc = parse(std::path::Path::new("c.toml"), Some(text)).unwrap();
        assert!(remove_enabled_hooks(&mut doc).is_none());
        assert_eq!(doc.to_string(), text);
        let off = parse(
            std::path::Path::new("c.toml"),
            Some("[features]\nhooks = false\n"),
        )
        .unwrap();
        assert_eq!(hooks_switch(&off), Some(false));
    }

    #[test]
    fn refuses_broken_toml() {
        assert!(matches!(
            parse(std::path::Path::new("c.toml"), Some("[x\n")),
            Err(AgentError::Unparseable { .. })
        ));
    }
}
