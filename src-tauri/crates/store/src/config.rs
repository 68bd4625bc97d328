//! `config.toml` (DESIGN §8): every key defaulted, every mistake named with its key and line.
//!
//! Owns: the typed configuration, its defaults, reading the file (a regular file inside its
//! directory, at most `CONFIG_MAX` bytes: a FIFO or a link to `/dev/zero` is an error, never a
//! hang), parsing and validation.
//! Deliberately does not: look for the file (callers pass the path from `AmbryHome`) or apply
//! settings; each module reads the section it needs.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;
use crate::memory::bounded_read::{read_regular_within, ReadRefusal};

/// Most bytes `config.toml` may hold: a full configuration with long synonym lists is a few KiB.
pub const CONFIG_MAX: u64 = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub retrieval: RetrievalConfig,
    pub compose: ComposeConfig,
    pub archive: ArchiveConfig,
    pub sessions: SessionsConfig,
    pub editor: EditorConfig,
    pub lifecycle: LifecycleConfig,
    pub distill: DistillConfig,
    pub sync: SyncConfig,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Keyword,
    Bm25,
    Semantic,
    #[default]
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Fusion {
    #[default]
    Blend,
    Rrf,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "lowercase")]
pub enum SessionSource {
    Claude,
    Codex,
    Ambry,
}

impl SessionSource {
    pub const ALL: [SessionSource; 3] = [
        SessionSource::Claude,
        SessionSource::Codex,
        SessionSource::Ambry,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SessionSource::Claude => "claude",
            SessionSource::Codex => "codex",
            SessionSource::Ambry => "ambry",
        }
    }

    /// The source named `name` (`claude`, `codex`, `ambry`), as written in config and on the CLI.
    pub fn parse(name: &str) -> Option<SessionSource> {
        SessionSource::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

impl std::fmt::Display for SessionSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetrievalConfig {
    /// false: inject every body, no filter.
    pub enabled: bool,
    pub strategy: Strategy,
    pub fusion: Fusion,
    pub semantic_weight: f64,
    pub top_k: usize,
    pub max_bytes: usize,
    pub min_score: f64,
    pub embedding_model: String,
    /// Extra synonym groups, added to the built-in developer vocabulary.
    pub synonyms: Vec<Vec<String>>,
}

impl Default for RetrievalConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            strategy: Strategy::Auto,
            fusion: Fusion::Blend,
            // DESIGN says 0.4; the eval fixture measured 0.6 better on every class (see rank::fusion).
            semantic_weight: 0.6,
            top_k: 10,
            max_bytes: 24_000,
            min_score: 0.0,
            embedding_model: "all-MiniLM-L6-v2".to_string(),
            synonyms: Vec::new(),
        }
    }
}

/// `[compose]` (DESIGN §5): what an agent's context gets of memory. Either value is held to the
/// 8,000-byte hard limit on one hook output, whatever is written here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ComposeConfig {
    /// Most bytes of memory one turn adds.
    pub turn_bytes: usize,
    /// The memory map given once per context.
    pub map_bytes: usize,
}

impl Default for ComposeConfig {
    fn default() -> Self {
        ComposeConfig {
            turn_bytes: 4000,
            map_bytes: 3000,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ArchiveConfig {
    /// Per memory; prune keeps the newest N.
    pub keep_versions: usize,
    /// Prune drops older versions; 0 means no age limit.
    pub max_age_days: u64,
}

impl Default for ArchiveConfig {
    fn default() -> Self {
        Self {
            keep_versions: 20,
            max_age_days: 365,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionsConfig {
    pub sources: Vec<SessionSource>,
    pub include_tools: bool,
}

impl Default for SessionsConfig {
    fn default() -> Self {
        Self {
            sources: vec![
                SessionSource::Claude,
                SessionSource::Codex,
                SessionSource::Ambry,
            ],
            include_tools: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct EditorConfig {
    /// e.g. `code -g {path}`; empty: `$VISUAL`, `$EDITOR`, then the system default.
    pub command: String,
}

/// The review inbox (DESIGN §14).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LifecycleConfig {
    /// A memory no agent was given or fetched for this many days, while its scope was in use,
    /// is flagged unused.
    pub unused_days: u64,
}

impl Default for LifecycleConfig {
    fn default() -> Self {
        Self { unused_days: 90 }
    }
}

/// `[distill]`: the person's own agent proposing memories from past sessions (DESIGN §14).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DistillConfig {
    /// false: `memory distill` and the app's Distill action refuse to run.
    pub enabled: bool,
    /// The agent used without `--with`: `claude` or `codex`.
    pub agent: DistillAgent,
    /// The command starting Claude Code (a name on PATH or a path).
    pub claude_command: String,
    /// The command starting Codex.
    pub codex_command: String,
    /// Most agent calls one run makes (one call per transcript chunk).
    pub max_calls: usize,
    /// Most estimated input tokens one run sends (about 4 bytes a token).
    pub max_tokens: u64,
    /// Most transcript bytes in one call; a longer session is sent in chunks.
    pub chunk_bytes: usize,
    /// How long one agent call may take before it is stopped.
    pub timeout_secs: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DistillAgent {
    #[default]
    Claude,
    Codex,
}

impl DistillAgent {
    pub fn as_str(self) -> &'static str {
        match self {
            DistillAgent::Claude => "claude",
            DistillAgent::Codex => "codex",
        }
    }
}

impl Default for DistillConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            agent: DistillAgent::Claude,
            claude_command: "claude".into(),
            codex_command: "codex".into(),
            max_calls: 10,
            max_tokens: 200_000,
            chunk_bytes: 48_000,
            timeout_secs: 600,
        }
    }
}

/// `[sync]`: personal sync on git (DESIGN §15).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SyncConfig {
    /// The git remote this home syncs with; empty: sync is not set up (`ambry sync init`).
    pub remote: String,
    /// Sync shortly after local changes and every `interval_minutes` (front ends that run long).
    pub auto: bool,
    /// Minutes between automatic pulls.
    pub interval_minutes: u64,
}

impl Default for SyncConfig {
    fn default() -> Self {
        Self {
            remote: String::new(),
            auto: true,
            interval_minutes: 10,
        }
    }
}

impl SyncConfig {
    /// The remote, when sync is set up.
    pub fn remote(&self) -> Option<&str> {
        Some(self.remote.trim()).filter(|r| !r.is_empty())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// Not a regular file, too large, a link out of the home, or not UTF-8.
    #[error("{path} {reason}")]
    Unusable { path: String, reason: String },
    #[error("{path}, line {line}: {message}")]
    Invalid {
        path: String,
        line: usize,
        key: String,
        message: String,
    },
}

impl ConfigError {
    /// A bad value inside `[retrieval]` (or the table itself).
    pub fn is_in_retrieval(&self) -> bool {
        matches!(self, ConfigError::Invalid { key, .. } if key == "retrieval" || key.starts_with("retrieval."))
    }
}

impl ErrorCode for ConfigError {
    fn code(&self) -> crate::error::Code {
        match self {
            ConfigError::Read { .. } | ConfigError::Unusable { .. } => {
                crate::error::Code::ConfigUnreadable
            }
            ConfigError::Invalid { .. } => crate::error::Code::ConfigInvalid,
        }
    }
}

impl Config {
    /// Loads the file; a missing file is the default configuration, a bad one is an error.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let origin = path.display().to_string();
        let unusable = |reason: String| ConfigError::Unusable {
            path: origin.clone(),
            reason,
        };
        let home = path.parent().unwrap_or(Path::new("."));
        match read_regular_within(path, home, CONFIG_MAX) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Config::parse(&text, &origin),
                Err(e) => {
                    let at = e.utf8_error().valid_up_to();
                    let line = e.as_bytes()[..at].iter().filter(|b| **b == b'\n').count() + 1;
                    // The text before the bad byte is valid: it says which key's line it is on.
                    let valid = String::from_utf8_lossy(&e.as_bytes()[..at]);
                    let key = key_at(&valid, at)
                        .map(|k| format!(" ({k})"))
                        .unwrap_or_default();
                    Err(unusable(format!(
                        "is not UTF-8 text: an invalid byte on line {line}{key} (byte {at})"
                    )))
                }
            },
            Err(ReadRefusal::Missing) => Ok(Config::default()),
            Err(ReadRefusal::Io(source)) => Err(ConfigError::Read {
                path: origin.clone(),
                source,
            }),
            Err(other) => Err(unusable(other.to_string())),
        }
    }

    /// [`Config::load`], except that a bad value in `[retrieval]` gives that table's defaults and
    /// the error as a warning: how memories are ranked must not keep them from being saved, nor
    /// transcripts from being indexed and recalled. Any other error stays an error.
    pub fn load_lenient(path: &Path) -> Result<(Config, Option<ConfigError>), ConfigError> {
        let error = match Config::load(path) {
            Ok(config) => return Ok((config, None)),
            Err(e @ ConfigError::Invalid { .. }) if e.is_in_retrieval() => e,
            Err(e) => return Err(e),
        };
        let home = path.parent().unwrap_or(Path::new("."));
        let without = read_regular_within(path, home, CONFIG_MAX)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .and_then(|text| text.parse::<toml::Table>().ok())
            .and_then(|mut table| {
                table.remove("retrieval");
                toml::to_string(&table).ok()
            })
            .and_then(|text| Config::parse(&text, &path.display().to_string()).ok());
        match without {
            Some(config) => Ok((config, Some(error))),
            None => Err(error),
        }
    }

    /// Parses and validates `text`; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let start = e.span().map(|s| s.start);
            let line = start.map(|b| line_at(text, b)).unwrap_or(1);
            let key = start.and_then(|b| key_at(text, b)).unwrap_or_default();
            let message = e.message().trim().to_string();
            let message = if key.is_empty() {
                message
            } else {
                format!("{key}: {message}")
            };
            ConfigError::Invalid {
                path: origin.to_string(),
                line,
                key,
                message,
            }
        })?;
        config.validate(text, origin)?;
        Ok(config)
    }

    fn validate(&self, text: &str, origin: &str) -> Result<(), ConfigError> {
        let fail = |section: &str, key: &str, message: String| ConfigError::Invalid {
            path: origin.to_string(),
            line: line_of_key(text, section, key),
            key: format!("{section}.{key}"),
            message: format!("{section}.{key}: {message}"),
        };
        let r = &self.retrieval;
        if !(0.0..=1.0).contains(&r.semantic_weight) || r.semantic_weight.is_nan() {
            return Err(fail(
                "retrieval",
                "semantic_weight",
                format!("must be between 0 and 1, got {}", r.semantic_weight),
            ));
        }
        if r.top_k == 0 {
            return Err(fail("retrieval", "top_k", "must be at least 1".into()));
        }
        if r.max_bytes == 0 {
            return Err(fail("retrieval", "max_bytes", "must be at least 1".into()));
        }
        if !(0.0..=1.0).contains(&r.min_score) || r.min_score.is_nan() {
            return Err(fail(
                "retrieval",
                "min_score",
                format!("must be between 0 and 1, got {}", r.min_score),
            ));
        }
        if !is_model_id(&r.embedding_model) {
            return Err(fail(
                "retrieval",
                "embedding_model",
                format!("`{}` is not a model id: use a name like all-MiniLM-L6-v2 (letters, digits, `.`, `_`, `-`), not a path; models live in AMBRY_HOME/models/<id>/", r.embedding_model),
            ));
        }
        if let Some(group) = r
            .synonyms
            .iter()
            .find(|g| g.len() < 2 || g.iter().any(|w| w.trim().is_empty()))
        {
            return Err(fail(
                "retrieval",
                "synonyms",
                format!("each group needs at least two non-empty words, got {group:?}"),
            ));
        }
        if self.archive.keep_versions == 0 {
            return Err(fail(
                "archive",
                "keep_versions",
                "must be at least 1 (prune never removes every version)".into(),
            ));
        }
        let d = &self.distill;
        for (key, value) in [
            ("max_calls", d.max_calls as u64),
            ("max_tokens", d.max_tokens),
            ("chunk_bytes", d.chunk_bytes as u64),
            ("timeout_secs", d.timeout_secs),
        ] {
            if value == 0 {
                return Err(fail(
                    "distill",
                    key,
                    "must be at least 1 (set enabled = false to switch distill off)".into(),
                ));
            }
        }
        for (key, value) in [
            ("claude_command", &d.claude_command),
            ("codex_command", &d.codex_command),
        ] {
            if value.trim().is_empty() {
                return Err(fail("distill", key, "must name a command".into()));
            }
        }
        if self.sync.interval_minutes == 0 {
            return Err(fail(
                "sync",
                "interval_minutes",
                "must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// A model id names a directory under `models/`, so it is one path component and never `..`.
fn is_model_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && !id.contains("..")
}

/// The dotted key (`retrieval.top_k`) whose line holds byte `byte`, for parse errors that point at
/// a value, or the table a `[header]` line names (a duplicate table, an unknown sub-table);
/// `None` when the line is neither.
fn key_at(text: &str, byte: usize) -> Option<String> {
    let byte = byte.min(text.len());
    let line_start = text[..byte].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    if line.trim_start().starts_with('[') {
        let table = line.trim().trim_matches(|c| c == '[' || c == ']').trim();
        return (!table.is_empty()).then(|| table.to_string());
    }
    let key = line.split_once('=')?.0.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') {
        return None;
    }
    let section = text[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match section {
        Some(section) if !section.is_empty() => format!("{section}.{key}"),
        _ => key.to_string(),
    })
}

fn line_at(text: &str, byte: usize) -> usize {
    text[..byte.min(text.len())].matches('\n').count() + 1
}

/// Line of `key` inside `[section]`, for errors found after parsing; 1 if it cannot be found.
fn line_of_key(text: &str, section: &str, key: &str) -> usize {
    let mut current = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            current = line
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string();
            continue;
        }
        let k = line.split('=').next().unwrap_or("").trim();
        let dotted = format!("{section}.{key}");
        if (current == section && k == key) || (current.is_empty() && k == dotted) {
            return i + 1;
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_errors_name_the_key_and_line() {
        let err = Config::parse(
            "[retrieval]\nstrategy = \"bm25\"\ntop_k = \"ten\"\n",
            "config.toml",
        )
        .unwrap_err();
        let ConfigError::Invalid {
            line, key, message, ..
        } = &err
        else {
            panic!("{err}")
        };
        assert_eq!((*line, key.as_str()), (3, "retrieval.top_k"));
        assert!(message.starts_with("retrieval.top_k: "), "{message}");
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn model_ids_are_names_not_paths() {
        for bad in ["/etc", "../x", "a/b", "..", ".hidden", ""] {
            let text = format!("[retrieval]\nembedding_model = {bad:?}\n");
            let err = Config::parse(&text, "config.toml").unwrap_err().to_string();
            assert!(
                err.contains("retrieval.embedding_model") && err.contains("line 2"),
                "{bad:?} → {err}"
            );
        }
        for good in ["all-MiniLM-L6-v2", "bge-small-en-v1.5", "my_model"] {
            assert!(
                Config::parse(&format!("[retrieval]\nembedding_model = {good:?}\n"), "c").is_ok(),
                "{good}"
            );
        }
    }

    #[test]
    fn empty_file_is_all_defaults() {
        let c = Config::parse("", "config.toml").unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.retrieval.top_k, 10);
        assert_eq!(c.retrieval.max_bytes, 24_000);
        assert_eq!(c.retrieval.strategy, Strategy::Auto);
        assert_eq!(c.archive.keep_versions, 20);
        assert_eq!(c.archive.max_age_days, 365);
        assert_eq!(c.sessions.sources.len(), 3);
        assert!(!c.sessions.include_tools);
    }

    #[test]
    fn design_example_parses() {
        let text = r#"
[retrieval]
enabled = true
strategy = "bm25"
fusion = "rrf"
semantic_weight = 0.4
top_k = 5
max_bytes = 1000
min_score = 0.1
embedding_model = "all-MiniLM-L6-v2"
synonyms = [["gql", "graphql"]]

[archive]
keep_versions = 3
max_age_days = 0

[sessions]
sources = ["claude", "ambry"]
include_tools = true

[editor]
command = "code -g {path}"
"#;
        let c = Config::parse(text, "config.toml").unwrap();
        assert_eq!(c.retrieval.strategy, Strategy::Bm25);
        assert_eq!(c.retrieval.fusion, Fusion::Rrf);
        assert_eq!(c.retrieval.top_k, 5);
        assert_eq!(
            c.retrieval.synonyms,
            vec![vec!["gql".to_string(), "graphql".to_string()]]
        );
        assert_eq!(
            c.sessions.sources,
            vec![SessionSource::Claude, SessionSource::Ambry]
        );
        assert_eq!(c.editor.command, "code -g {path}");
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let err = Config::parse("[retrieval]\ntop_k = 3\ntopk = 4\n", "c.toml").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("line 3"), "{msg}");
        assert!(msg.contains("topk"), "{msg}");
    }

    #[test]
    fn bad_enum_value_names_line() {
        let err = Config::parse("\n[retrieval]\nstrategy = \"fuzzy\"\n", "c.toml").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("line 3"), "{msg}");
        assert!(msg.contains("fuzzy"), "{msg}");
    }

    #[test]
    fn out_of_range_value_names_key_and_line() {
        let err = Config::parse("[retrieval]\n\nsemantic_weight = 1.5\n", "c.toml").unwrap_err();
        match &err {
            ConfigError::Invalid { line, key, .. } => {
                assert_eq!(*line, 3);
                assert_eq!(key, "retrieval.semantic_weight");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(err.code(), "config_invalid");
    }

    #[test]
    fn table_errors_and_bad_bytes_name_the_key_and_the_line() {
        for (text, line, key) in [
            ("[retrieval]\ntop_k = 3\n[retrieval]\n", 3, "retrieval"),
            (
                "[retrieval]\ntop_k = 3\n\n[retrieval.sub]\nx = 1\n",
                4,
                "retrieval.sub",
            ),
        ] {
            let err = Config::parse(text, "c.toml").unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(&format!("line {line}")), "{text:?}: {msg}");
            match &err {
                ConfigError::Invalid { key: k, .. } => assert_eq!(k, key, "{msg}"),
                other => panic!("{other:?}"),
            }
            assert!(msg.contains(key), "{msg}");
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, b"[retrieval]\ntop_k = 3\nstrategy = \"bm\xe9\"\n").unwrap();
        let err = Config::load(&path).unwrap_err().to_string();
        assert!(err.contains("line 3 (retrieval.strategy)"), "{err}");
    }

    #[test]
    fn a_bad_retrieval_value_gives_its_defaults_with_a_warning_and_other_errors_stay() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "[retrieval]\ntop_k = 0\n[archive]\nkeep_versions = 3\n",
        )
        .unwrap();
        assert!(Config::load(&path).is_err());
        let (config, warning) = Config::load_lenient(&path).unwrap();
        assert_eq!(config.retrieval, RetrievalConfig::default());
        assert_eq!(config.archive.keep_versions, 3, "the rest is read");
        assert!(warning.unwrap().to_string().contains("retrieval.top_k"));
        std::fs::write(&path, "[archive]\nkeep_versions = 0\n").unwrap();
        assert!(Config::load_lenient(&path).is_err());
    }

    #[test]
    fn wrong_type_is_an_error_not_a_default() {
        let err = Config::parse("[archive]\nkeep_versions = \"many\"\n", "c.toml").unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    #[test]
    fn missing_file_is_default_but_unreadable_is_error() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            Config::load(&dir.path().join("nope.toml")).unwrap(),
            Config::default()
        );
        // A directory where the file should be cannot be read as a file.
        let err = Config::load(dir.path()).unwrap_err();
        assert_eq!(err.code(), "config_unreadable");
    }

    #[test]
    fn a_fifo_a_device_link_an_oversized_or_non_utf8_file_is_an_error_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = Config::load(&path).unwrap_err();
        assert_eq!(err.code(), "config_unreadable");
        assert!(err.to_string().contains("named pipe"), "{err}");
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        assert!(Config::load(&path)
            .unwrap_err()
            .to_string()
            .contains("/dev/zero"));
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, vec![b'#'; CONFIG_MAX as usize + 1]).unwrap();
        assert!(Config::load(&path)
            .unwrap_err()
            .to_string()
            .contains("limit"));
        std::fs::write(&path, b"[retrieval]\ntop_k = 3\n# caf\xe9\n").unwrap();
        let err = Config::load(&path).unwrap_err().to_string();
        assert!(err.contains("line 3"), "{err}");
    }
}
