//! The app as the desktop sees it: the freedesktop entry that starts Ambry at login (XDG
//! autostart, tray only) and the starter `config.toml` a person opens from Settings.
//!
//! Owns: the text of those files, where they go (from directories the caller passes in), and
//! writing them atomically without ever overwriting a file the person made.
//! Deliberately does not: read the environment (`XDG_CONFIG_HOME`, `HOME`), find the running
//! executable, or start an editor; the shell does those and passes the results in.

use std::path::{Path, PathBuf};

use ambry_store::error::ErrorCode;
use ambry_store::storage::write_atomic;

/// The file name of the entry in `applications/` and in `autostart/` (the app's identifier,
/// so desktops match windows to it).
pub const DESKTOP_FILE: &str = "dev.ambry.app.desktop";

/// The flag that starts the app with its window hidden (tray only).
pub const TRAY_FLAG: &str = "--tray";

#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    #[error("cannot write {path}: {source}; check that the folder is writable")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot remove {path}: {source}")]
    Remove {
        path: String,
        source: std::io::Error,
    },
    #[error("the app's path {0:?} cannot go in a desktop entry (it has a quote, backslash or line break)")]
    UnsafeExec(String),
}

impl ErrorCode for DesktopError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            DesktopError::Write { .. } | DesktopError::Remove { .. } => {
                ambry_store::error::Code::Io
            }
            DesktopError::UnsafeExec(_) => ambry_store::error::Code::InvalidPath,
        }
    }
}

/// `<config home>/autostart/dev.ambry.app.desktop` (`config_home` is `$XDG_CONFIG_HOME`, else
/// `~/.config`).
pub fn autostart_path(config_home: &Path) -> PathBuf {
    config_home.join("autostart").join(DESKTOP_FILE)
}

/// Whether Ambry starts at login: our entry exists and is not switched off (`Hidden=true` or
/// `X-GNOME-Autostart-enabled=false`, which desktop settings write to disable an entry).
pub fn autostart_enabled(config_home: &Path) -> bool {
    match std::fs::read_to_string(autostart_path(config_home)) {
        Ok(text) => !text.lines().any(|l| {
            let l = l.trim();
            l.eq_ignore_ascii_case("Hidden=true")
                || l.eq_ignore_ascii_case("X-GNOME-Autostart-enabled=false")
        }),
        Err(_) => false,
    }
}

/// Writes (or removes) the autostart entry that starts `exec` tray-only at login.
pub fn set_autostart(config_home: &Path, exec: &Path, enabled: bool) -> Result<(), DesktopError> {
    let path = autostart_path(config_home);
    if !enabled {
        return match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(DesktopError::Remove {
                path: path.display().to_string(),
                source,
            }),
        };
    }
    let text = autostart_entry(exec)?;
    let dir = path.parent().expect("autostart path has a folder");
    let write_err = |source| DesktopError::Write {
        path: path.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(write_err)?;
    write_atomic(dir, DESKTOP_FILE, text.as_bytes()).map_err(write_err)
}

/// The autostart entry: the menu entry's identity, started with `--tray`.
pub fn autostart_entry(exec: &Path) -> Result<String, DesktopError> {
    let exec = exec_value(exec)?;
    Ok(format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=Ambry\n\
         Comment=Memory manager for AI coding agents (tray only at login)\n\
         Exec={exec} {TRAY_FLAG}\n\
         Icon=ambry-app\n\
         Terminal=false\n\
         NoDisplay=true\n\
         X-GNOME-Autostart-enabled=true\n"
    ))
}

/// A path as a desktop entry's `Exec` wants it: quoted when it has spaces; refused when it
/// holds characters the Exec escaping rules would turn into something else.
fn exec_value(exec: &Path) -> Result<String, DesktopError> {
    let s = exec.to_string_lossy();
    if s.chars()
        .any(|c| matches!(c, '"' | '\\' | '`' | '$' | '\n' | '\r' | '%'))
    {
        return Err(DesktopError::UnsafeExec(s.into_owned()));
    }
    Ok(if s.contains(' ') {
        format!("\"{s}\"")
    } else {
        s.into_owned()
    })
}

/// A `config.toml` with every key at its default, commented out, so a person sees what can be
/// set and loses nothing by opening it.
pub const STARTER_CONFIG: &str = "\
# Ambry configuration. Every key is optional; the values shown are the defaults.
# Uncomment a line to change it; the app and the CLI pick changes up right away.

[retrieval]
# enabled = true            # false: agents get only the trust anchors and the memory map, no bodies
# strategy = \"auto\"         # keyword | bm25 | semantic | auto
# fusion = \"blend\"          # blend | rrf
# semantic_weight = 0.6
# top_k = 10
# max_bytes = 24000
# min_score = 0.0
# embedding_model = \"all-MiniLM-L6-v2\"
# synonyms = [[\"gql\", \"graphql\"]]   # extra groups

[compose]
# turn_bytes = 4000         # most bytes of memory bodies one prompt adds (hard limit 8000 per output)
# map_bytes = 3000          # the memory map given once per context

[archive]
# keep_versions = 20        # per memory; prune keeps the newest N
# max_age_days = 365        # prune drops older versions (0 = no age limit)

[sessions]
# sources = [\"claude\", \"codex\", \"ambry\"]
# include_tools = false

[lifecycle]
# unused_days = 90          # review flags a memory no agent was given or fetched for this long

[distill]
# enabled = true            # false: distill refuses to run
# agent = \"claude\"          # claude | codex: the agent CLI that proposes memories
# claude_command = \"claude\"
# codex_command = \"codex\"
# max_calls = 10            # agent calls per run
# max_tokens = 200000       # estimated tokens per run
# chunk_bytes = 48000       # transcript bytes per call
# timeout_secs = 600        # seconds one call may take

[editor]
# command = \"\"              # e.g. \"code -g {path}\"; empty: $VISUAL, $EDITOR, then the system default

[sync]
# remote = \"\"               # personal sync's git remote; set by `ambry sync init REMOTE`
# auto = true
# interval_minutes = 10
";

/// Creates `path` with `STARTER_CONFIG` when it does not exist; returns whether it did. An
/// existing file is never touched.
pub fn create_starter_config(path: &Path) -> Result<bool, DesktopError> {
    if path.exists() {
        return Ok(false);
    }
    let write_err = |source| DesktopError::Write {
        path: path.display().to_string(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(write_err)?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("config.toml");
    write_atomic(dir, name, STARTER_CONFIG.as_bytes()).map_err(write_err)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ambry_store::config::Config;

    #[test]
    fn the_starter_config_is_the_defaults_commented_or_not() {
        assert_eq!(
            Config::parse(STARTER_CONFIG, "starter").unwrap(),
            Config::default()
        );
        // Uncommenting every key (minus the example synonym group) still gives the defaults.
        let uncommented: String = STARTER_CONFIG
            .lines()
            .filter(|l| !l.contains("synonyms"))
            .map(|l| {
                l.strip_prefix("# ")
                    .filter(|rest| rest.contains(" = "))
                    .unwrap_or(l)
            })
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(uncommented.contains("\ntop_k = 10"), "{uncommented}");
        assert_eq!(
            Config::parse(&uncommented, "uncommented").unwrap(),
            Config::default()
        );
    }

    #[test]
    fn the_starter_never_overwrites_a_config() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("home/config.toml");
        assert!(create_starter_config(&path).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), STARTER_CONFIG);
        std::fs::write(&path, "[retrieval]\ntop_k = 3\n").unwrap();
        assert!(!create_starter_config(&path).unwrap());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[retrieval]\ntop_k = 3\n"
        );
    }

    #[test]
    fn autostart_writes_a_tray_only_entry_and_removes_it() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!autostart_enabled(dir.path()));
        set_autostart(
            dir.path(),
            Path::new("/home/a b/.local/bin/ambry-app"),
            true,
        )
        .unwrap();
        let text = std::fs::read_to_string(autostart_path(dir.path())).unwrap();
        assert!(
            text.contains("Exec=\"/home/a b/.local/bin/ambry-app\" --tray\n"),
            "{text}"
        );
        assert!(autostart_enabled(dir.path()));
        set_autostart(dir.path(), Path::new("/x"), false).unwrap();
        assert!(!autostart_path(dir.path()).exists());
        assert!(!autostart_enabled(dir.path()));
        // Disabling twice is fine.
        set_autostart(dir.path(), Path::new("/x"), false).unwrap();
    }

    #[test]
    fn an_entry_switched_off_by_the_desktop_counts_as_off() {
        let dir = tempfile::tempdir().unwrap();
        set_autostart(dir.path(), Path::new("/usr/bin/ambry-app"), true).unwrap();
        let path = autostart_path(dir.path());
        let text = std::fs::read_to_string(&path).unwrap().replace(
            "X-GNOME-Autostart-enabled=true",
            "X-GNOME-Autostart-enabled=false",
        );
        std::fs::write(&path, text).unwrap();
        assert!(!autostart_enabled(dir.path()));
    }

    #[test]
    fn a_path_that_would_break_the_exec_line_is_refused() {
        let err = autostart_entry(Path::new("/tmp/$(rm -rf ~)/ambry-app")).unwrap_err();
        assert_eq!(err.code(), "invalid_path");
    }
}
