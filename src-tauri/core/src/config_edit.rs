//! Changing `config.toml` from a settings screen: what each documented key means to a person
//! (label, description, kind of value, bounds) and writing one key's new value back into the
//! file with its comments, order and every other key kept (toml_edit).
//!
//! Owns: the catalogue of settable keys, checking a value against its key's kind, and the edit
//! (read bounded, edit, validate the whole result with `Config::parse`, write atomically).
//! Deliberately does not: parse or default the configuration (`config` does; a value is only
//! written when the file as a whole still loads) or decide what a setting does.

use std::path::Path;

use serde::Serialize;
use serde_json::Value as Json;
use toml_edit::{Array, DocumentMut, Item, Table, Value};

use crate::desktop::STARTER_CONFIG;
use crate::workspace::Workspace;
use ambry_store::config::{Config, ConfigError, SessionSource};
use ambry_store::error::ErrorCode;
use ambry_store::storage::write_atomic;

/// The most of config.toml read (it is a few hundred bytes; anything near this is not it).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// What kind of value a key takes, as a settings form draws it.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SettingKind {
    Toggle,
    /// A number in `min..=max` (`max` none: unbounded); whole numbers when `integer`.
    Number {
        min: f64,
        max: Option<f64>,
        integer: bool,
    },
    /// One of `options`: (value written, words shown).
    Choice {
        options: &'static [(&'static str, &'static str)],
    },
    Text {
        placeholder: &'static str,
    },
    /// Which session sources are indexed (`sessions.sources`).
    Sources,
    /// Groups of words that mean the same (`retrieval.synonyms`).
    WordGroups,
}

/// One key of config.toml as a person meets it.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SettingSpec {
    pub section: &'static str,
    pub key: &'static str,
    /// The group it is shown under.
    pub group: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    pub kind: SettingKind,
}

const fn spec(
    section: &'static str,
    key: &'static str,
    group: &'static str,
    label: &'static str,
    description: &'static str,
    kind: SettingKind,
) -> SettingSpec {
    SettingSpec {
        section,
        key,
        group,
        label,
        description,
        kind,
    }
}

const fn whole(min: f64, max: Option<f64>) -> SettingKind {
    SettingKind::Number {
        min,
        max,
        integer: true,
    }
}

const fn fraction() -> SettingKind {
    SettingKind::Number {
        min: 0.0,
        max: Some(1.0),
        integer: false,
    }
}

/// Every documented key (DESIGN §8). A key the running configuration does not have (a section
/// this build does not know) is left out of [`settings_of`].
pub const SETTINGS: &[SettingSpec] = &[
    spec("retrieval", "enabled", "What agents are given", "Give agents memory bodies",
        "On: each prompt gets the memories that match it. Off: agents get only the trust anchors and the memory map, no bodies.",
        SettingKind::Toggle),
    spec("compose", "turn_bytes", "What agents are given", "Memory text per prompt (bytes)",
        "The most bytes of memory bodies one prompt adds. 8000 is the hard limit per output.",
        whole(1.0, Some(8000.0))),
    spec("compose", "map_bytes", "What agents are given", "Memory map size (bytes)",
        "The list of memory names and descriptions given once per conversation.",
        whole(0.0, None)),
    spec("retrieval", "max_bytes", "What agents are given", "Most bytes of memories in a block",
        "The size cap on the memory block an agent gets; memories past it are cut.",
        whole(1.0, None)),
    spec("retrieval", "top_k", "Search", "Results per search",
        "How many memories a search returns and a prompt may be given.",
        whole(1.0, Some(1000.0))),
    spec("retrieval", "strategy", "Search", "How memories are ranked",
        "Automatic uses meaning (the embedding model) when it is installed and words otherwise.",
        SettingKind::Choice { options: &[
            ("auto", "Automatic"),
            ("bm25", "Words (BM25)"),
            ("keyword", "Exact words"),
            ("semantic", "Meaning only"),
        ] }),
    spec("retrieval", "fusion", "Search", "How words and meaning are combined",
        "Blend weighs the two scores; reciprocal rank fusion merges the two rankings.",
        SettingKind::Choice { options: &[("blend", "Blend"), ("rrf", "Reciprocal rank fusion")] }),
    spec("retrieval", "semantic_weight", "Search", "Weight of meaning",
        "In a blend, how much meaning counts against matching words: 0 words only, 1 meaning only.",
        fraction()),
    spec("retrieval", "min_score", "Search", "Lowest score kept",
        "Results scoring below this (0 to 1) are dropped. 0 keeps every match.",
        fraction()),
    spec("retrieval", "embedding_model", "Search", "Embedding model",
        "The model folder under AMBRY_HOME/models that gives meaning. Changing it asks for a reindex.",
        SettingKind::Text { placeholder: "all-MiniLM-L6-v2" }),
    spec("retrieval", "synonyms", "Search", "Words that mean the same",
        "One group per line, words separated by commas (e.g. gql, graphql). Added to the built-in developer vocabulary.",
        SettingKind::WordGroups),
    spec("archive", "keep_versions", "Archive", "Versions kept per memory",
        "Pruning the archive keeps this many newest versions of each memory.",
        whole(1.0, None)),
    spec("archive", "max_age_days", "Archive", "Drop versions older than (days)",
        "Pruning drops versions older than this many days. 0: no age limit.",
        whole(0.0, None)),
    spec("sessions", "sources", "Sessions", "Transcripts indexed",
        "Which agents' past sessions are indexed for recall.",
        SettingKind::Sources),
    spec("sessions", "include_tools", "Sessions", "Index tool calls",
        "Also index what tools were called with and returned (larger index, noisier recall).",
        SettingKind::Toggle),
    spec("lifecycle", "unused_days", "Review", "Unused after (days)",
        "Review flags a memory no agent was given or fetched for this many days while its scope was in use.",
        whole(1.0, None)),
    spec("editor", "command", "Editor", "Editor command",
        "What opens a file: {path} is replaced by the file (e.g. code -g {path}). Empty: $VISUAL, $EDITOR, then the desktop's default. A terminal editor opens in your terminal emulator.",
        SettingKind::Text { placeholder: "code -g {path}" }),
    spec("distill", "enabled", "Distill", "Allow distill",
        "On: your own agent CLI may be run, when you ask, over past sessions to propose memories for review. Off: distill refuses to run.",
        SettingKind::Toggle),
    spec("distill", "agent", "Distill", "Agent that distills",
        "Which agent CLI proposes memories when none is named; it runs on your account and is billed there.",
        SettingKind::Choice { options: &[("claude", "Claude Code"), ("codex", "Codex")] }),
    spec("distill", "claude_command", "Distill", "Claude Code command",
        "How Claude Code is started: a name on PATH or a path.",
        SettingKind::Text { placeholder: "claude" }),
    spec("distill", "codex_command", "Distill", "Codex command",
        "How Codex is started: a name on PATH or a path.",
        SettingKind::Text { placeholder: "codex" }),
    spec("distill", "max_calls", "Distill", "Most agent calls per run",
        "A run stops after this many calls; what is left is sent by a later run.",
        whole(1.0, None)),
    spec("distill", "max_tokens", "Distill", "Most tokens per run (estimate)",
        "A run stops before its estimated tokens (about 4 bytes each) pass this.",
        whole(1.0, None)),
    spec("distill", "chunk_bytes", "Distill", "Transcript bytes per call",
        "A longer session is sent in several calls of at most this many bytes.",
        whole(1.0, None)),
    spec("distill", "timeout_secs", "Distill", "Seconds one call may take",
        "A call still running after this is stopped.",
        whole(1.0, None)),
    spec("sync", "remote", "Sync", "Sync remote",
        "The git remote your memories sync with across your machines (set by `ambry sync init REMOTE`). Empty: no sync.",
        SettingKind::Text { placeholder: "git@github.com:you/ambry-memory.git" }),
    spec("sync", "auto", "Sync", "Sync automatically",
        "On: the app syncs shortly after a change and pulls every few minutes, once a remote is set.",
        SettingKind::Toggle),
    spec("sync", "interval_minutes", "Sync", "Pull every (minutes)",
        "How often an automatic sync pulls what your other machines changed.",
        whole(1.0, None)),
];

/// A key with its current (effective) and default values, as JSON the form shows.
#[derive(Debug, Clone, Serialize)]
pub struct SettingView {
    #[serde(flatten)]
    pub spec: SettingSpec,
    pub value: Json,
    pub default: Json,
}

/// Every settable key the configuration `config` has, with its value and default.
pub fn settings_of(config: &Config) -> Vec<SettingView> {
    let current = serde_json::to_value(config).unwrap_or_default();
    let defaults = serde_json::to_value(Config::default()).unwrap_or_default();
    SETTINGS
        .iter()
        .filter_map(|spec| {
            let value = current.get(spec.section)?.get(spec.key)?.clone();
            let default = defaults
                .get(spec.section)
                .and_then(|s| s.get(spec.key))
                .cloned()
                .unwrap_or(Json::Null);
            Some(SettingView {
                spec: *spec,
                value,
                default,
            })
        })
        .collect()
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigEditError {
    #[error("{section}.{key} is not a setting")]
    Unknown { section: String, key: String },
    #[error("{label}: {reason}")]
    InvalidValue { label: &'static str, reason: String },
    #[error("config.toml does not load, so it is not changed from here: {0}")]
    Broken(String),
    #[error("{label}: {source}")]
    Refused {
        label: &'static str,
        source: ConfigError,
    },
    #[error("cannot {action} {path}: {reason}")]
    Io {
        action: &'static str,
        path: String,
        reason: String,
    },
}

impl ErrorCode for ConfigEditError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            ConfigEditError::Unknown { .. } => ambry_store::error::Code::UnknownSetting,
            ConfigEditError::InvalidValue { .. } | ConfigEditError::Refused { .. } => {
                ambry_store::error::Code::InvalidSetting
            }
            ConfigEditError::Broken(_) => ambry_store::error::Code::ConfigInvalid,
            ConfigEditError::Io { .. } => ambry_store::error::Code::ConfigWriteFailed,
        }
    }
}

/// The spec of `section.key`.
pub fn setting(section: &str, key: &str) -> Result<&'static SettingSpec, ConfigEditError> {
    SETTINGS
        .iter()
        .find(|s| s.section == section && s.key == key)
        .ok_or_else(|| ConfigEditError::Unknown {
            section: section.into(),
            key: key.into(),
        })
}

/// `value` as the TOML value `spec` takes, or why it is not one.
fn to_toml(spec: &SettingSpec, value: &Json) -> Result<Value, ConfigEditError> {
    let invalid = |reason: String| ConfigEditError::InvalidValue {
        label: spec.label,
        reason,
    };
    match spec.kind {
        SettingKind::Toggle => value
            .as_bool()
            .map(Value::from)
            .ok_or_else(|| invalid("must be on or off".into())),
        SettingKind::Number { min, max, integer } => {
            let n = match value {
                Json::Number(n) => n.as_f64(),
                Json::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            }
            .filter(|n| n.is_finite())
            .ok_or_else(|| invalid("must be a number".into()))?;
            if integer && n.fract() != 0.0 {
                return Err(invalid(format!("must be a whole number, got {n}")));
            }
            if n < min || max.is_some_and(|m| n > m) {
                let range = match max {
                    Some(m) => format!("between {min} and {m}"),
                    None => format!("at least {min}"),
                };
                return Err(invalid(format!("must be {range}, got {n}")));
            }
            Ok(if integer {
                Value::from(n as i64)
            } else {
                Value::from(n)
            })
        }
        SettingKind::Choice { options } => {
            let chosen = value.as_str().unwrap_or_default();
            options
                .iter()
                .find(|(v, _)| *v == chosen)
                .map(|(v, _)| Value::from(*v))
                .ok_or_else(|| {
                    let names: Vec<&str> = options.iter().map(|(v, _)| *v).collect();
                    invalid(format!("must be one of {}", names.join(", ")))
                })
        }
        SettingKind::Text { .. } => value
            .as_str()
            .map(|s| Value::from(s.trim()))
            .ok_or_else(|| invalid("must be text".into())),
        SettingKind::Sources => {
            let names = value
                .as_array()
                .ok_or_else(|| invalid("must be a list of sources".into()))?;
            let mut list = Array::new();
            for name in names {
                let name = name.as_str().unwrap_or_default();
                if SessionSource::parse(name).is_none() {
                    return Err(invalid(format!(
                        "`{name}` is not a source (claude, codex, ambry)"
                    )));
                }
                list.push(name);
            }
            Ok(Value::Array(list))
        }
        SettingKind::WordGroups => {
            let groups = value
                .as_array()
                .ok_or_else(|| invalid("must be groups of words".into()))?;
            let mut list = Array::new();
            for group in groups {
                let words: Vec<&str> = group
                    .as_array()
                    .map(|g| g.iter().filter_map(Json::as_str).map(str::trim).collect())
                    .unwrap_or_default();
                if words.len() < 2 || words.iter().any(|w| w.is_empty()) {
                    return Err(invalid(format!(
                        "each group needs at least two words, got {group}"
                    )));
                }
                list.push(Value::Array(words.into_iter().collect()));
            }
            Ok(Value::Array(list))
        }
    }
}

/// Sets `section.key` in the TOML text `text` (or removes it, back to its default, when
/// `value` is `None`) and returns the new text and the configuration it gives. Comments, order
/// and the other keys are kept; a value the configuration refuses leaves nothing changed.
pub fn edit_text(
    text: &str,
    section: &str,
    key: &str,
    value: Option<&Json>,
) -> Result<(String, Config), ConfigEditError> {
    let spec = setting(section, key)?;
    Config::parse(text, "config.toml").map_err(|e| ConfigEditError::Broken(e.to_string()))?;
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| ConfigEditError::Broken(e.to_string()))?;
    match value {
        Some(value) => {
            let new = to_toml(spec, value)?;
            if doc.get(section).is_none() {
                let table = new_table_after_trailing_lines(&mut doc);
                doc.insert(section, Item::Table(table));
            }
            let table = doc[section]
                .as_table_like_mut()
                .ok_or_else(|| ConfigEditError::Broken(format!("[{section}] is not a table")))?;
            match table.get_mut(key) {
                // The old value's spacing and trailing comment stay with the new one.
                Some(Item::Value(old)) => {
                    let decor = old.decor().clone();
                    *old = new;
                    *old.decor_mut() = decor;
                }
                _ => {
                    table.insert(key, Item::Value(new));
                }
            }
        }
        None => {
            if let Some(table) = doc.get_mut(section).and_then(Item::as_table_like_mut) {
                table.remove(key);
            }
        }
    }
    let new_text = doc.to_string();
    let config =
        Config::parse(&new_text, "config.toml").map_err(|source| ConfigEditError::Refused {
            label: spec.label,
            source,
        })?;
    Ok((new_text, config))
}

/// A table to append to `doc`. Lines after the last table's last key (such as `[editor]`'s
/// `# command = ""`) are the document's trailing text, which is written after every table: a
/// table appended as is would land between `[editor]` and its commented line, and uncommenting
/// that line would then set a key of the new table. Those lines move into the new table's
/// prefix, so they stay under the table they belong to.
fn new_table_after_trailing_lines(doc: &mut DocumentMut) -> Table {
    let mut table = Table::new();
    let trailing = doc.trailing().as_str().unwrap_or("").to_string();
    if !trailing.trim().is_empty() {
        table
            .decor_mut()
            .set_prefix(format!("{}\n\n", trailing.trim_end()));
        doc.set_trailing("");
    }
    table
}

/// The file's text: the commented starter when there is none; a link or a huge file is refused.
fn read_config(path: &Path) -> Result<String, ConfigEditError> {
    let io = |action, reason: String| ConfigEditError::Io {
        action,
        path: path.display().to_string(),
        reason,
    };
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(STARTER_CONFIG.into()),
        Err(e) => return Err(io("read", e.to_string())),
        Ok(meta) if !meta.is_file() => {
            return Err(io(
                "change",
                "it is not a regular file (a link?); edit it where it is".into(),
            ))
        }
        Ok(meta) if meta.len() > MAX_CONFIG_BYTES => {
            return Err(io("read", format!("larger than {MAX_CONFIG_BYTES} bytes")))
        }
        Ok(_) => {}
    }
    std::fs::read_to_string(path).map_err(|e| io("read", e.to_string()))
}

impl Workspace {
    /// Every settable key with its effective value and default (DESIGN §8).
    pub fn settings(&self) -> Result<Vec<SettingView>, ConfigError> {
        Ok(settings_of(&self.config()?))
    }

    /// Writes `section.key = value` (or back to its default when `value` is `None`) into
    /// config.toml, created from the commented starter when missing. Everything that reads the
    /// configuration sees the change at its next read (the workspace reloads a changed file).
    pub fn set_setting(
        &self,
        section: &str,
        key: &str,
        value: Option<&Json>,
    ) -> Result<Config, ConfigEditError> {
        let path = self.home().config_file();
        let text = read_config(&path)?;
        let (new_text, config) = edit_text(&text, section, key, value)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let io = |reason: String| ConfigEditError::Io {
            action: "write",
            path: path.display().to_string(),
            reason,
        };
        ambry_store::storage::create_private_dir_all(dir).map_err(|e| io(e.to_string()))?;
        write_atomic(dir, "config.toml", new_text.as_bytes()).map_err(|e| io(e.to_string()))?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PERSONS_FILE: &str = "\
# my settings
[retrieval]
top_k = 10   # ten is plenty
strategy = \"bm25\"

[archive]
# keep a year
max_age_days = 365
";

    #[test]
    fn a_changed_value_keeps_comments_order_and_other_keys() {
        let (text, config) =
            edit_text(PERSONS_FILE, "retrieval", "top_k", Some(&json!(4))).unwrap();
        assert_eq!(text, PERSONS_FILE.replace("top_k = 10", "top_k = 4"));
        assert_eq!(config.retrieval.top_k, 4);
    }

    #[test]
    fn a_new_key_lands_in_its_section_and_a_new_section_is_added() {
        let (text, config) =
            edit_text(PERSONS_FILE, "archive", "keep_versions", Some(&json!(5))).unwrap();
        assert!(
            text.contains("# keep a year\nmax_age_days = 365\nkeep_versions = 5\n"),
            "{text}"
        );
        assert_eq!(config.archive.keep_versions, 5);
        let (text, config) = edit_text(
            PERSONS_FILE,
            "editor",
            "command",
            Some(&json!("  code -g {path} ")),
        )
        .unwrap();
        assert!(text.starts_with(PERSONS_FILE), "{text}");
        assert!(
            text.ends_with("[editor]\ncommand = \"code -g {path}\"\n"),
            "{text}"
        );
        assert_eq!(config.editor.command, "code -g {path}");
    }

    #[test]
    fn a_new_table_never_lands_between_a_table_and_its_commented_lines() {
        let file =
            "[archive]\nkeep_versions = 5\n\n[editor]\n# command = \"\"   # e.g. code -g {path}\n";
        let (text, config) = edit_text(file, "distill", "max_calls", Some(&json!(3))).unwrap();
        assert_eq!(
            text,
            format!("{file}\n[distill]\nmax_calls = 3\n"),
            "the commented line left [editor]"
        );
        assert_eq!(config.distill.max_calls, 3);
        // Uncommenting the line later sets the editor, not the new table.
        let uncommented = text.replace("# command = \"\"", "command = \"vim\"");
        let config = Config::parse(&uncommented, "config.toml").unwrap();
        assert_eq!(config.editor.command, "vim");
        assert_eq!(config.distill.max_calls, 3);
    }

    #[test]
    fn every_section_of_the_starter_takes_its_keys_under_its_own_header() {
        for spec in SETTINGS {
            let (text, _) = edit_text(STARTER_CONFIG, spec.section, spec.key, Some(&sample(spec)))
                .unwrap_or_else(|e| panic!("{}.{}: {e}", spec.section, spec.key));
            assert_eq!(
                text.matches(&format!("[{}]", spec.section)).count(),
                1,
                "{}.{} added a second table:\n{text}",
                spec.section,
                spec.key
            );
            // Every commented line of the starter is still where it was, under its own table.
            let kept: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
            let starter: Vec<&str> = STARTER_CONFIG
                .lines()
                .filter(|l| l.starts_with('#'))
                .collect();
            assert_eq!(kept, starter, "{}.{}", spec.section, spec.key);
        }
    }

    /// A value `spec` accepts, other than its default where that is easy.
    fn sample(spec: &SettingSpec) -> Json {
        match spec.kind {
            SettingKind::Toggle => json!(false),
            SettingKind::Number { min, integer, .. } => {
                if integer {
                    json!((min as u64).max(1) + 1)
                } else {
                    json!(0.5)
                }
            }
            SettingKind::Choice { options } => json!(options[options.len() - 1].0),
            SettingKind::Text { .. } => json!("x"),
            SettingKind::Sources => json!(["claude"]),
            SettingKind::WordGroups => json!([["gql", "graphql"]]),
        }
    }

    #[test]
    fn removing_a_key_returns_it_to_its_default() {
        let (text, config) = edit_text(PERSONS_FILE, "retrieval", "strategy", None).unwrap();
        assert!(!text.contains("strategy"), "{text}");
        assert_eq!(
            config.retrieval.strategy,
            Config::default().retrieval.strategy
        );
    }

    #[test]
    fn values_outside_their_kind_are_refused_with_the_label() {
        let cases = [
            ("retrieval", "top_k", json!(0), "between 1 and 1000"),
            ("retrieval", "top_k", json!(2.5), "whole number"),
            (
                "retrieval",
                "semantic_weight",
                json!(1.5),
                "between 0 and 1",
            ),
            ("retrieval", "strategy", json!("fast"), "one of auto"),
            (
                "sessions",
                "sources",
                json!(["claude", "cursor"]),
                "not a source",
            ),
            (
                "retrieval",
                "synonyms",
                json!([["gql"]]),
                "at least two words",
            ),
            ("retrieval", "enabled", json!("yes"), "on or off"),
        ];
        for (section, key, value, expected) in cases {
            let err = edit_text(PERSONS_FILE, section, key, Some(&value)).unwrap_err();
            assert_eq!(err.code(), "invalid_setting", "{section}.{key}");
            let text = err.to_string();
            assert!(text.contains(expected), "{section}.{key}: {text}");
            assert!(
                text.contains(setting(section, key).unwrap().label),
                "{text}"
            );
        }
    }

    #[test]
    fn the_configurations_own_checks_refuse_what_the_kind_lets_through() {
        let err = edit_text(
            PERSONS_FILE,
            "retrieval",
            "embedding_model",
            Some(&json!("../elsewhere")),
        )
        .unwrap_err();
        assert_eq!(err.code(), "invalid_setting");
        assert!(err.to_string().contains("not a model id"), "{err}");
    }

    #[test]
    fn a_file_that_does_not_load_is_not_touched() {
        let err = edit_text(
            "[retrieval]\ntop_k = \"x\"\n",
            "retrieval",
            "top_k",
            Some(&json!(3)),
        )
        .unwrap_err();
        assert_eq!(err.code(), "config_invalid");
        let err = edit_text(PERSONS_FILE, "retrieval", "nope", Some(&json!(3))).unwrap_err();
        assert_eq!(err.code(), "unknown_setting");
    }

    #[test]
    fn lists_are_written_as_toml_arrays() {
        let (_, config) = edit_text("", "sessions", "sources", Some(&json!(["codex"]))).unwrap();
        assert_eq!(config.sessions.sources, [SessionSource::Codex]);
        let (text, config) = edit_text(
            "",
            "retrieval",
            "synonyms",
            Some(&json!([["gql", " graphql"], ["k8s", "kubernetes", "kube"]])),
        )
        .unwrap();
        assert_eq!(config.retrieval.synonyms[0], ["gql", "graphql"]);
        assert!(
            text.contains("synonyms = [[\"gql\", \"graphql\"]"),
            "{text}"
        );
    }

    #[test]
    fn every_key_the_configuration_has_is_offered_with_its_default() {
        let views = settings_of(&Config::default());
        for view in &views {
            assert_eq!(
                view.value, view.default,
                "{}.{}",
                view.spec.section, view.spec.key
            );
            assert!(!view.spec.description.is_empty());
        }
        let offered: Vec<String> = views
            .iter()
            .map(|v| format!("{}.{}", v.spec.section, v.spec.key))
            .collect();
        // Every key of the effective configuration can be changed here.
        let config = serde_json::to_value(Config::default()).unwrap();
        for (section, keys) in config.as_object().unwrap() {
            for key in keys.as_object().unwrap().keys() {
                assert!(
                    offered.contains(&format!("{section}.{key}")),
                    "{section}.{key} has no setting"
                );
            }
        }
    }

    #[test]
    fn a_missing_file_is_written_from_the_commented_starter() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let text = read_config(&path).unwrap();
        let (new_text, _) = edit_text(&text, "archive", "keep_versions", Some(&json!(3))).unwrap();
        assert!(new_text.starts_with(&STARTER_CONFIG[..40]), "{new_text}");
        assert!(new_text.contains("keep_versions = 3"), "{new_text}");
        std::os::unix::fs::symlink("/etc/hostname", &path).unwrap();
        assert_eq!(
            read_config(&path).unwrap_err().code(),
            "config_write_failed"
        );
    }
}
