//! Which program opens a memory for editing (DESIGN §8 `editor.command`).
//!
//! Owns: the resolution order — `editor.command` (with `{path}` substituted, or the path
//! appended), then `$VISUAL`, then `$EDITOR`, then the system default opener — and splitting a
//! command line into a program and its arguments with shell quoting rules.
//! Deliberately does not: read the environment (the caller passes `$VISUAL`/`$EDITOR` in) or
//! spawn anything (the shell launches what this returns).

use std::path::{Path, PathBuf};

use crate::error::ErrorCode;

/// How to open a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorLaunch {
    /// Run `program` with `args` (the file's path is already among them).
    Command {
        program: String,
        args: Vec<String>,
        source: EditorSource,
    },
    /// Hand the file to the desktop's default application for it.
    SystemDefault { path: PathBuf },
}

/// Where the command came from, so a failure can say what to fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditorSource {
    Config,
    Visual,
    Editor,
}

impl EditorSource {
    pub fn describe(self) -> &'static str {
        match self {
            EditorSource::Config => "editor.command in config.toml",
            EditorSource::Visual => "$VISUAL",
            EditorSource::Editor => "$EDITOR",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EditorError {
    #[error("{source_name} (`{command}`) is not a valid command line: unbalanced quotes; fix it or leave it empty to use the system default")]
    Unparseable {
        source_name: &'static str,
        command: String,
    },
}

impl ErrorCode for EditorError {
    fn code(&self) -> &'static str {
        match self {
            EditorError::Unparseable { .. } => "invalid_editor_command",
        }
    }
}

/// Resolves the program that opens `path`. Empty or blank values are skipped.
pub fn resolve_editor(
    configured: &str,
    visual: Option<&str>,
    editor: Option<&str>,
    path: &Path,
) -> Result<EditorLaunch, EditorError> {
    let candidates = [
        (Some(configured), EditorSource::Config),
        (visual, EditorSource::Visual),
        (editor, EditorSource::Editor),
    ];
    for (value, source) in candidates {
        let Some(command) = value.map(str::trim).filter(|c| !c.is_empty()) else {
            continue;
        };
        return command_launch(command, source, path);
    }
    Ok(EditorLaunch::SystemDefault {
        path: path.to_path_buf(),
    })
}

fn command_launch(
    command: &str,
    source: EditorSource,
    path: &Path,
) -> Result<EditorLaunch, EditorError> {
    let unparseable = || EditorError::Unparseable {
        source_name: source.describe(),
        command: command.to_string(),
    };
    let words = shlex::split(command).ok_or_else(unparseable)?;
    let path_text = path.to_string_lossy();
    let mut substituted = false;
    let mut words: Vec<String> = words
        .into_iter()
        .map(|w| {
            if w.contains("{path}") {
                substituted = true;
                w.replace("{path}", &path_text)
            } else {
                w
            }
        })
        .collect();
    if words.is_empty() {
        return Err(unparseable());
    }
    if !substituted {
        words.push(path_text.into_owned());
    }
    let program = words.remove(0);
    Ok(EditorLaunch::Command {
        program,
        args: words,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(program: &str, args: &[&str], source: EditorSource) -> EditorLaunch {
        EditorLaunch::Command {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            source,
        }
    }

    #[test]
    fn config_command_wins_and_path_is_substituted() {
        let launch = resolve_editor(
            "code -g {path}",
            Some("vim"),
            Some("nano"),
            Path::new("/m/a b.md"),
        )
        .unwrap();
        assert_eq!(
            launch,
            command("code", &["-g", "/m/a b.md"], EditorSource::Config)
        );
    }

    #[test]
    fn placeholder_inside_a_word_is_substituted() {
        let launch =
            resolve_editor("subl --file={path}:1", None, None, Path::new("/m/x.md")).unwrap();
        assert_eq!(
            launch,
            command("subl", &["--file=/m/x.md:1"], EditorSource::Config)
        );
    }

    #[test]
    fn without_placeholder_the_path_is_appended() {
        let launch = resolve_editor(
            "",
            Some("emacsclient -n"),
            Some("nano"),
            Path::new("/m/x.md"),
        )
        .unwrap();
        assert_eq!(
            launch,
            command("emacsclient", &["-n", "/m/x.md"], EditorSource::Visual)
        );
    }

    #[test]
    fn editor_is_used_when_visual_is_blank() {
        let launch = resolve_editor(
            "  ",
            Some(" "),
            Some("'/opt/my editor/bin/ed'"),
            Path::new("/m/x.md"),
        )
        .unwrap();
        assert_eq!(
            launch,
            command("/opt/my editor/bin/ed", &["/m/x.md"], EditorSource::Editor)
        );
    }

    #[test]
    fn nothing_configured_falls_back_to_the_system_default() {
        let launch = resolve_editor("", None, Some(""), Path::new("/m/x.md")).unwrap();
        assert_eq!(
            launch,
            EditorLaunch::SystemDefault {
                path: PathBuf::from("/m/x.md")
            }
        );
    }

    #[test]
    fn unbalanced_quotes_are_an_error_naming_the_source() {
        let err = resolve_editor("code \"-g", None, None, Path::new("/m/x.md")).unwrap_err();
        assert_eq!(err.code(), "invalid_editor_command");
        assert!(err.to_string().contains("editor.command"), "{err}");
    }
}
