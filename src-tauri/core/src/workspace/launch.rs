//! The launch environment: everything a front end learns from its process environment, read
//! in one place by one rule, so the app, the CLI, the compose service and the MCP server cannot
//! resolve a different home, models directory or transcript folder.
//!
//! Owns: the variable names Ambry honours and the rule for them (a blank value counts as
//! unset), and resolving the home (`--home`, else `AMBRY_HOME`, else `~/.ambry`).
//! Deliberately does not: call `std::env` itself; each binary passes a lookup function, so the
//! rule is tested without touching the process environment.

use std::path::PathBuf;
use std::time::Duration;

use ambry_store::home::AmbryHome;

/// Every process-environment value Ambry reads, already resolved by the one rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchEnv {
    /// `AMBRY_HOME`.
    pub ambry_home: Option<PathBuf>,
    /// The person's home directory (`$HOME`).
    pub user_home: Option<PathBuf>,
    /// `AMBRY_MODELS_DIR`: embedding assets somewhere other than `AMBRY_HOME/models`.
    pub models_dir: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR` (Claude Code's own override of `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME` (Codex's own override of `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` (absolute), else `~/.config`: where desktop autostart entries live.
    pub config_home: Option<PathBuf>,
    /// `PATH`: where the agents' own programs (`claude`, `codex`) are looked for.
    pub path: Option<String>,
    /// `$VISUAL` and `$EDITOR`, for "open in editor".
    pub visual: Option<String>,
    pub editor: Option<String>,
    /// How long an unused embedding model stays loaded (`AMBRY_MODEL_IDLE_SECS`, default 10 min).
    pub model_idle: Duration,
    /// `AMBRY_NO_SERVICE`: compose in-process, never ask or start the compose service.
    pub no_service: bool,
    /// `AMBRY_SERVICE_AUTOSTART=0`: compose asks a running service but never starts one.
    pub autostart_service: bool,
    /// `AMBRY_DISTILL`: this process runs inside a distill's agent child; hooks print nothing.
    pub distill_child: bool,
}

/// The default for [`LaunchEnv::model_idle`].
pub const DEFAULT_MODEL_IDLE: Duration = Duration::from_secs(600);

impl LaunchEnv {
    /// Builds the environment from `lookup` (e.g. `|k| std::env::var(k).ok()`) and the person's
    /// home directory. A variable that is set but blank counts as unset, everywhere.
    pub fn from_lookup(
        lookup: impl Fn(&str) -> Option<String>,
        user_home: Option<PathBuf>,
    ) -> LaunchEnv {
        let value = |key: &str| lookup(key).filter(|v| !v.trim().is_empty());
        let path = |key: &str| value(key).map(PathBuf::from);
        let user_home = user_home.filter(|h| !h.as_os_str().is_empty());
        LaunchEnv {
            config_home: path("XDG_CONFIG_HOME")
                .filter(|p| p.is_absolute())
                .or_else(|| user_home.as_ref().map(|h| h.join(".config"))),
            ambry_home: path("AMBRY_HOME"),
            user_home,
            models_dir: path("AMBRY_MODELS_DIR"),
            claude_config_dir: path("CLAUDE_CONFIG_DIR"),
            codex_home: path("CODEX_HOME"),
            path: value("PATH"),
            visual: value("VISUAL"),
            editor: value("EDITOR"),
            model_idle: value("AMBRY_MODEL_IDLE_SECS")
                .and_then(|s| s.trim().parse::<u64>().ok())
                .map(|secs| Duration::from_secs(secs.max(1)))
                .unwrap_or(DEFAULT_MODEL_IDLE),
            no_service: value("AMBRY_NO_SERVICE").is_some_and(|v| v.trim() != "0"),
            autostart_service: value("AMBRY_SERVICE_AUTOSTART").is_none_or(|v| v.trim() != "0"),
            distill_child: value(ambry_lifecycle::distill::CHILD_MARKER)
                .is_some_and(|v| v.trim() != "0"),
        }
    }

    /// An environment with nothing set but where the embedding assets are (tests, tools).
    pub fn with_models_dir(models_dir: impl Into<PathBuf>) -> LaunchEnv {
        LaunchEnv {
            models_dir: Some(models_dir.into()),
            model_idle: DEFAULT_MODEL_IDLE,
            autostart_service: true,
            ..LaunchEnv::default()
        }
    }

    /// The process's own environment: the one call each binary makes at start-up.
    pub fn from_process() -> LaunchEnv {
        LaunchEnv::from_lookup(|k| std::env::var(k).ok(), std::env::home_dir())
    }

    /// The home: `flag` (`--home`), else `AMBRY_HOME`, else `~/.ambry`. `None` only when none
    /// of them is known; a home that is not a directory is refused.
    pub fn resolve_home(&self, flag: Option<PathBuf>) -> Result<AmbryHome, HomeError> {
        let home = AmbryHome::resolve(flag, self.ambry_home.clone(), self.user_home.clone())
            .ok_or(HomeError::Unknown)?;
        match std::fs::metadata(home.root()) {
            Ok(meta) if !meta.is_dir() => Err(HomeError::NotADirectory {
                path: home.root().display().to_string(),
            }),
            _ => Ok(home),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    #[error("cannot find a home directory: pass --home DIR or set AMBRY_HOME")]
    Unknown,
    #[error("the Ambry home {path} is a file, not a directory; pass --home DIR or set AMBRY_HOME to a directory")]
    NotADirectory { path: String },
}

impl ambry_store::error::ErrorCode for HomeError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            HomeError::Unknown => ambry_store::error::Code::NoHome,
            HomeError::NotADirectory { .. } => ambry_store::error::Code::HomeNotADirectory,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> LaunchEnv {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        LaunchEnv::from_lookup(|k| map.get(k).cloned(), Some(PathBuf::from("/home/p")))
    }

    #[test]
    fn blank_variables_count_as_unset_for_every_key() {
        let e = env(&[
            ("AMBRY_HOME", " "),
            ("AMBRY_MODELS_DIR", ""),
            ("CLAUDE_CONFIG_DIR", "\t"),
            ("CODEX_HOME", ""),
            ("VISUAL", " "),
            ("AMBRY_NO_SERVICE", ""),
        ]);
        assert_eq!(e.ambry_home, None);
        assert_eq!(e.models_dir, None);
        assert_eq!(e.claude_config_dir, None);
        assert_eq!(e.codex_home, None);
        assert_eq!(e.visual, None);
        assert_eq!(e.config_home, Some(PathBuf::from("/home/p/.config")));
        assert!(!e.no_service);
        assert_eq!(
            e.resolve_home(None).unwrap().root(),
            std::path::Path::new("/home/p/.ambry")
        );
    }

    #[test]
    fn the_flag_beats_the_variable_which_beats_the_default() {
        let e = env(&[("AMBRY_HOME", "/e")]);
        assert_eq!(
            e.resolve_home(None).unwrap().root(),
            std::path::Path::new("/e")
        );
        assert_eq!(
            e.resolve_home(Some("/flag".into())).unwrap().root(),
            std::path::Path::new("/flag")
        );
    }

    #[test]
    fn no_home_at_all_is_an_error_not_a_relative_directory() {
        let e = LaunchEnv::from_lookup(|_| None, None);
        assert!(matches!(e.resolve_home(None), Err(HomeError::Unknown)));
    }

    #[test]
    fn a_home_that_is_a_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let err = env(&[]).resolve_home(Some(file)).unwrap_err();
        assert!(matches!(err, HomeError::NotADirectory { .. }), "{err}");
    }

    #[test]
    fn no_service_and_idle_parse_by_one_rule() {
        assert!(env(&[("AMBRY_NO_SERVICE", "1")]).no_service);
        assert!(!env(&[("AMBRY_NO_SERVICE", "0")]).no_service);
        assert!(env(&[]).autostart_service);
        assert!(!env(&[("AMBRY_SERVICE_AUTOSTART", "0")]).autostart_service);
        assert_eq!(
            env(&[("AMBRY_MODEL_IDLE_SECS", "5")]).model_idle,
            Duration::from_secs(5)
        );
        assert_eq!(
            env(&[("AMBRY_MODEL_IDLE_SECS", "ten")]).model_idle,
            DEFAULT_MODEL_IDLE
        );
        assert_eq!(
            env(&[("AMBRY_MODEL_IDLE_SECS", "0")]).model_idle,
            Duration::from_secs(1)
        );
    }
}
