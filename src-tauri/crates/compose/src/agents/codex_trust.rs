//! Codex's hook trust, as Codex itself computes it: Codex runs a user hook only when
//! `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"] trusted_hash` in its
//! config.toml equals the hash of that hook's current definition, and skips an untrusted or
//! changed one without a word. A moved binary changes the command, so the hash, so the hook
//! silently stops; this module makes that visible.
//!
//! Owns: the key and the hash of each of Ambry's hooks (Codex 0.169: SHA-256 over the compact,
//! key-sorted JSON of `{event_name, matcher?, hooks: [{type: "command", command, timeout,
//! async, statusMessage?}]}`, timeout defaulting to 600 and at least 1, the matcher ignored for
//! `UserPromptSubmit`; checked against `codex app-server`'s `hooks/list` in the tests), and the
//! verdict per hook: trusted, untrusted, changed since trusted, or switched off. The key starts
//! with the hooks file's path as Codex has it: the real path (Codex 0.171 canonicalizes
//! `CODEX_HOME`), which `AgentEnv` resolves once for the writer (`connect codex --trust`) and
//! every reader (doctor, the app, connect) alike; an entry under the path as given, through a
//! link or relative, is one Codex never finds and is not counted as trust.
//! Deliberately does not: write the trust entry (`codex_config::write_trust`, only on
//! `connect codex --trust`) or read files.

use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use toml_edit::DocumentMut;

use super::codex_config;
use super::hooks_json::FoundHook;

/// What Codex does with one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trust {
    /// The trusted hash matches: Codex runs it.
    Trusted,
    /// No trust entry: Codex skips it until the person trusts it.
    Untrusted,
    /// Trusted once, but the hook changed since (a moved binary, a new timeout): skipped.
    Changed,
    /// The person switched it off in Codex (`enabled = false`).
    Disabled,
}

impl Trust {
    pub fn describe(self) -> &'static str {
        match self {
            Trust::Trusted => "trusted",
            Trust::Untrusted => "not trusted yet: Codex skips it",
            Trust::Changed => "changed since you trusted it: Codex skips it",
            Trust::Disabled => "switched off in Codex",
        }
    }
}

/// One of Ambry's Codex hooks and Codex's view of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookTrust {
    pub event: &'static str,
    /// The `[hooks.state]` key Codex files it under.
    pub key: String,
    /// The hash Codex computes for the hook as it is now.
    pub current_hash: String,
    pub trust: Trust,
}

/// How a person trusts a hook in Codex.
pub const HOW_TO_TRUST: &str =
    "in Codex, type /hooks and trust Ambry's hooks (or run `ambry connect codex --trust`)";

/// Codex's label for an event in keys and hashes.
pub fn event_label(event: &str) -> &'static str {
    match event {
        "SessionStart" => "session_start",
        "UserPromptSubmit" => "user_prompt_submit",
        "PreToolUse" => "pre_tool_use",
        "PostToolUse" => "post_tool_use",
        "Stop" => "stop",
        _ => "unknown",
    }
}

/// The `[hooks.state]` key of a hook in `hooks_file` (the real path: `AgentEnv::codex_hooks`).
pub fn key(hooks_file: &Path, hook: &FoundHook) -> String {
    format!(
        "{}:{}:{}:{}",
        hooks_file.display(),
        event_label(hook.event),
        hook.group,
        hook.handler
    )
}

/// The hash Codex computes for a command hook (its `currentHash`).
pub fn hash(hook: &FoundHook) -> String {
    let mut handler = json!({
        "type": "command",
        "command": hook.command,
        "timeout": hook.timeout.unwrap_or(600).max(1),
        "async": hook.is_async,
    });
    if let Some(message) = &hook.status_message {
        handler["statusMessage"] = json!(message);
    }
    let mut identity = json!({ "event_name": event_label(hook.event), "hooks": [handler] });
    // Codex ignores a matcher on UserPromptSubmit (it matches every prompt).
    if let (Some(matcher), false) = (&hook.matcher, hook.event == "UserPromptSubmit") {
        identity["matcher"] = json!(matcher);
    }
    let canonical = serde_json::to_vec(&sorted(&identity)).expect("JSON serializes");
    let digest = Sha256::digest(&canonical);
    format!("sha256:{}", hex(&digest))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The value with every object's keys in sorted order (serde_json here keeps insertion order).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Codex's verdict on each of Ambry's hooks, from its config.toml.
pub fn trust_of(hooks_file: &Path, hooks: &[FoundHook], config: &DocumentMut) -> Vec<HookTrust> {
    hooks
        .iter()
        .map(|hook| {
            let key = key(hooks_file, hook);
            let current_hash = hash(hook);
            let trust = match codex_config::trust_entry(config, &key) {
                Some((_, Some(false))) => Trust::Disabled,
                Some((Some(trusted), _)) if trusted == current_hash => Trust::Trusted,
                Some((Some(_), _)) => Trust::Changed,
                _ => Trust::Untrusted,
            };
            HookTrust {
                event: hook.event,
                key,
                current_hash,
                trust,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::hooks_json;
    use crate::agents::json_edit::JsonText;
    use crate::agents::Agent;

    /// Written by the real Codex (see fixtures/codex-trust/generate.sh): its own `config/batchWrite`
    /// trusted both hooks, then the UserPromptSubmit hook was re-pointed; `hooks-list.json` is
    /// what Codex's `hooks/list` then said.
    const FIXTURE_HOME: &str = "/tmp/ambry-codex-trust-fixture/codex";
    const CONFIG: &str = include_str!("fixtures/codex-trust/config.toml");
    const HOOKS: &str = include_str!("fixtures/codex-trust/hooks.json");
    const VERDICT: &str = include_str!("fixtures/codex-trust/hooks-list.json");

    #[test]
    fn agrees_with_what_codex_itself_wrote_and_said() {
        let hooks_file = Path::new(FIXTURE_HOME).join("hooks.json");
        let doc = JsonText::parse(&hooks_file, Some(HOOKS)).unwrap();
        let found = hooks_json::find(&doc, Agent::Codex);
        assert_eq!(found.len(), 2);
        let config = codex_config::parse(Path::new("config.toml"), Some(CONFIG)).unwrap();
        let ours = trust_of(&hooks_file, &found, &config);
        let codex: Vec<Value> = serde_json::from_str(VERDICT).unwrap();
        assert_eq!(ours.len(), codex.len());
        for (mine, theirs) in ours.iter().zip(&codex) {
            assert_eq!(mine.key, theirs["key"].as_str().unwrap());
            assert_eq!(mine.current_hash, theirs["currentHash"].as_str().unwrap());
            let expected = match theirs["trustStatus"].as_str().unwrap() {
                "trusted" => Trust::Trusted,
                "modified" => Trust::Changed,
                "untrusted" => Trust::Untrusted,
                other => panic!("unexpected status {other}"),
            };
            assert_eq!(mine.trust, expected, "{}", mine.key);
        }
        assert_eq!(
            ours.iter().map(|h| h.trust).collect::<Vec<_>>(),
            [Trust::Trusted, Trust::Changed],
            "the fixture covers both verdicts"
        );
        let bare = codex_config::parse(Path::new("config.toml"), Some("model = \"o4\"\n")).unwrap();
        assert!(trust_of(&hooks_file, &found, &bare)
            .iter()
            .all(|h| h.trust == Trust::Untrusted));
    }

    #[test]
    fn trusting_writes_what_codex_reads_and_removing_it_restores_the_file() {
        let hooks_file = Path::new(FIXTURE_HOME).join("hooks.json");
        let doc = JsonText::parse(&hooks_file, Some(HOOKS)).unwrap();
        let found = hooks_json::find(&doc, Agent::Codex);
        let original = "# mine\nmodel = \"o4\"\n\n[hooks]\n";
        let mut config = codex_config::parse(Path::new("c.toml"), Some(original)).unwrap();
        for hook in &found {
            assert!(codex_config::write_trust(
                &mut config,
                "c.toml",
                &key(&hooks_file, hook),
                &hash(hook)
            )
            .unwrap());
        }
        let written = config.to_string();
        assert!(
            trust_of(&hooks_file, &found, &config)
                .iter()
                .all(|h| h.trust == Trust::Trusted),
            "{written}"
        );
        let mut again = codex_config::parse(Path::new("c.toml"), Some(&written)).unwrap();
        for hook in &found {
            assert!(codex_config::remove_trust(
                &mut again,
                &key(&hooks_file, hook),
                &hash(hook)
            ));
        }
        assert_eq!(again.to_string(), original);
    }
}
