//! Codex's `config.toml`: the `[mcp_servers.ambry]` table, Codex's hook trust entries
//! (`[hooks.state."<key>"] trusted_hash`), and the hooks feature switch.
//!
//! Owns: editing the file with `toml_edit`, so comments, blank lines and key order of
//! everything else survive; registering `[mcp_servers.ambry]` (`command`, `args` with
//! `--home DIR` when the home is not the default, and `env_vars` naming the Ambry variables,
//! since Codex passes a stdio server only a short list of environment variables), re-pointing
//! it when it runs Ambry from elsewhere, refusing an `ambry` entry that runs something else;
//! reading and writing trust entries; reading the person's hooks switch; removing the
//! `codex_hooks = true` that earlier releases of `ambry connect codex` added (by its mark).
//! Tables Ambry creates are implicit (no header of their own), so removing what it added
//! leaves a header the person wrote, even an empty one.
//! Deliberately does not: write hooks (they go to hooks.json, see `hooks_json`), or compute
//! trust hashes (`codex_trust`).

use toml_edit::{value, Array, DocumentMut, Item, Table};

use super::ambry_command::{is_ambry, AmbryCommand};
use super::AgentError;

pub const SERVER: &str = "ambry";
/// The variables a Codex-started server is given from Codex's own environment, so it resolves
/// the same home and models as the hook (which inherits Codex's whole environment).
pub const ENV_VARS: [&str; 2] = ["AMBRY_HOME", "AMBRY_MODELS_DIR"];
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

fn strings(item: Option<&Item>) -> Vec<String> {
    item.and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The registered server's command and args, when `[mcp_servers.ambry]` exists.
pub fn find_server(doc: &DocumentMut) -> Option<(String, Vec<String>)> {
    let server = doc.get("mcp_servers")?.get(SERVER)?;
    let command = server.get("command")?.as_str()?.to_string();
    Some((command, strings(server.get("args"))))
}

fn is_ours(doc: &DocumentMut) -> bool {
    find_server(doc).is_some_and(|(c, a)| is_ambry(&c, &a, &["mcp"]))
}

/// Registers (or re-points) the server; `None` when it was already registered exactly so.
pub fn install_server(
    doc: &mut DocumentMut,
    path: &str,
    ambry: &AmbryCommand,
) -> Result<Option<String>, AgentError> {
    let args = ambry.server_args();
    let shown = format!("{} {}", ambry.program, args.join(" "));
    let existing = find_server(doc);
    let env_vars_set = doc
        .get("mcp_servers")
        .and_then(|s| s.get(SERVER))
        .map(|s| strings(s.get("env_vars")))
        .is_some_and(|v| ENV_VARS.iter().all(|e| v.iter().any(|x| x == e)));
    if existing
        .as_ref()
        .is_some_and(|(c, a)| *c == ambry.program && *a == args)
        && env_vars_set
    {
        return Ok(None);
    }
    let shape = |key: &str| AgentError::UnexpectedShape {
        path: path.to_string(),
        key: key.to_string(),
        expected: "a table",
        found: "something else".into(),
    };
    let has_entry = doc.get("mcp_servers").and_then(|s| s.get(SERVER)).is_some();
    if has_entry && !is_ours(doc) {
        return Err(AgentError::ForeignEntry {
            path: path.to_string(),
            key: format!("mcp_servers.{SERVER}"),
        });
    }
    let root = doc.as_table_mut();
    if !root.contains_key("mcp_servers") {
        let mut servers = Table::new();
        servers.set_implicit(true);
        root.insert("mcp_servers", Item::Table(servers));
    }
    let servers = root["mcp_servers"]
        .as_table_like_mut()
        .ok_or_else(|| shape("mcp_servers"))?;
    if !has_entry {
        servers.insert(SERVER, Item::Table(Table::new()));
    }
    let server = servers
        .get_mut(SERVER)
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| shape("mcp_servers.ambry"))?;
    server.insert("command", value(ambry.program.as_str()));
    server.insert("args", value(args.iter().collect::<Array>()));
    let mut vars = strings(server.get("env_vars"));
    for var in ENV_VARS {
        if !vars.iter().any(|v| v == var) {
            vars.push(var.to_string());
        }
    }
    server.insert("env_vars", value(vars.iter().collect::<Array>()));
    Ok(Some(match existing {
        Some((c, a)) => format!(
            "[mcp_servers.{SERVER}] now runs `{shown}` (was `{c} {}`), passing {}",
            a.join(" "),
            ENV_VARS.join(", ")
        ),
        None => format!(
            "registered MCP server [mcp_servers.{SERVER}] (`{shown}`, passing {})",
            ENV_VARS.join(", ")
        ),
    }))
}

/// Removes Ambry's `[mcp_servers.ambry]`, and `mcp_servers` when it held nothing else and had
/// no header of its own. An `ambry` entry that runs something else is left alone.
pub fn remove_server(doc: &mut DocumentMut) -> Option<String> {
    if !is_ours(doc) {
        return None;
    }
    let root = doc.as_table_mut();
    let servers = root.get_mut("mcp_servers")?.as_table_mut()?;
    servers.remove(SERVER)?;
    if servers.is_empty() && servers.is_implicit() {
        root.remove("mcp_servers");
    }
    Some(format!("removed MCP server [mcp_servers.{SERVER}]"))
}

/// The trust entry Codex keeps for a hook key: its `trusted_hash` and `enabled` switch.
pub fn trust_entry(doc: &DocumentMut, key: &str) -> Option<(Option<String>, Option<bool>)> {
    let entry = doc.get("hooks")?.get("state")?.get(key)?;
    Some((
        entry
            .get("trusted_hash")
            .and_then(Item::as_str)
            .map(str::to_string),
        entry.get("enabled").and_then(Item::as_bool),
    ))
}

/// Writes `[hooks.state."<key>"] trusted_hash = "<hash>"`, the entry Codex's own hook review
/// writes. Returns `false` when it was already there.
pub fn write_trust(
    doc: &mut DocumentMut,
    path: &str,
    key: &str,
    hash: &str,
) -> Result<bool, AgentError> {
    if trust_entry(doc, key).is_some_and(|(h, _)| h.as_deref() == Some(hash)) {
        return Ok(false);
    }
    let shape = |k: &str| AgentError::UnexpectedShape {
        path: path.to_string(),
        key: k.to_string(),
        expected: "a table",
        found: "something else".into(),
    };
    let mut table = doc.as_table_mut();
    for name in ["hooks", "state"] {
        if !table.contains_key(name) {
            let mut t = Table::new();
            t.set_implicit(true);
            table.insert(name, Item::Table(t));
        }
        table = table[name].as_table_mut().ok_or_else(|| shape(name))?;
    }
    if !table.contains_key(key) {
        table.insert(key, Item::Table(Table::new()));
    }
    let entry = table[key].as_table_mut().ok_or_else(|| shape(key))?;
    entry.insert("trusted_hash", value(hash));
    Ok(true)
}

/// Removes the trust entry for `key` when it trusts exactly `hash` (Ambry's hook as it was),
/// then `hooks.state` and `hooks` when they are left empty without a header of their own.
pub fn remove_trust(doc: &mut DocumentMut, key: &str, hash: &str) -> bool {
    if trust_entry(doc, key).is_none_or(|(h, _)| h.as_deref() != Some(hash)) {
        return false;
    }
    let root = doc.as_table_mut();
    let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_mut) else {
        return false;
    };
    let Some(state) = hooks.get_mut("state").and_then(Item::as_table_mut) else {
        return false;
    };
    state.remove(key);
    if state.is_empty() && state.is_implicit() {
        hooks.remove("state");
    }
    if hooks.is_empty() && hooks.is_implicit() {
        root.remove("hooks");
    }
    true
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
        assert!(
            install_server(&mut doc, "c.toml", &AmbryCommand::new("/bin/ambry"))
                .unwrap()
                .is_some()
        );
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
            connected.contains("[mcp_servers.ambry]\ncommand = \"/bin/ambry\"\nargs = [\"mcp\"]\nenv_vars = [\"AMBRY_HOME\", \"AMBRY_MODELS_DIR\"]"),
            "{connected}"
        );
        assert!(
            !connected.contains("[features]"),
            "hooks are on by default; no switch is added:\n{connected}"
        );
        let mut again = parse(std::path::Path::new("c.toml"), Some(&connected)).unwrap();
        assert!(
            install_server(&mut again, "c.toml", &AmbryCommand::new("/bin/ambry"))
                .unwrap()
                .is_none()
        );
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
