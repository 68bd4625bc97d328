//! Which program opens a memory for editing (DESIGN §8 `editor.command`).
//!
//! Owns: the resolution order — `editor.command` (with `{path}` substituted, or the path
//! appended), then `$VISUAL`, then `$EDITOR`, then the system default opener — splitting a
//! command line into a program and its arguments with shell quoting rules, knowing which
//! editors need a terminal (vim, nano, …) and how each terminal emulator is told to run one.
//! Deliberately does not: read the environment (the caller passes `$VISUAL`/`$EDITOR`/`$TERMINAL`
//! and a PATH lookup in) or spawn anything (the shell launches what this returns).

use std::path::{Path, PathBuf};

use ambry_store::error::ErrorCode;

/// How to open a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorLaunch {
    /// Run `program` with `args` (the file's path is already among them).
    Command {
        program: String,
        args: Vec<String>,
        source: EditorSource,
    },
    /// Run a terminal editor inside `terminal` (`args` hold the run flag, the editor and the
    /// path).
    InTerminal {
        terminal: String,
        args: Vec<String>,
        editor: String,
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
    #[error("{editor} (from {source_name}) runs in a terminal, and no terminal emulator was found (looked for {tried}). Install one (e.g. xterm), set $TERMINAL to yours, or set editor.command to a graphical editor")]
    NeedsTerminal {
        editor: String,
        source_name: &'static str,
        tried: String,
    },
    #[error("{source_name} (`{command}`) is not a valid command line: unbalanced quotes; fix it or leave it empty to use the system default")]
    Unparseable {
        source_name: &'static str,
        command: String,
    },
}

impl ErrorCode for EditorError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            EditorError::Unparseable { .. } => ambry_store::error::Code::InvalidEditorCommand,
            EditorError::NeedsTerminal { .. } => ambry_store::error::Code::EditorNeedsTerminal,
        }
    }
}

/// Editors that draw in a terminal: started from a desktop app without one they exit at once
/// (vim says "Output is not to a terminal" and quits), so they are run inside an emulator.
const TERMINAL_EDITORS: &[&str] = &[
    "vi",
    "vim",
    "nvim",
    "view",
    "vim.basic",
    "vim.tiny",
    "nano",
    "pico",
    "micro",
    "hx",
    "helix",
    "kak",
    "joe",
    "jed",
    "ne",
    "mg",
    "ed",
    "ex",
    "vis",
    "mcedit",
    "tilde",
    "amp",
    "nvi",
    "elvis",
];

/// Terminal emulators looked for on PATH after `$TERMINAL`, most specific to the desktop first.
pub const TERMINAL_EMULATORS: &[&str] = &[
    "x-terminal-emulator",
    "gnome-terminal",
    "konsole",
    "xfce4-terminal",
    "kitty",
    "alacritty",
    "foot",
    "wezterm",
    "tilix",
    "terminator",
    "xterm",
];

/// Whether `program args…` is an editor that needs a terminal to run in. Emacs and
/// emacsclient do only when told to stay in the terminal (`-nw`, `-t`, `--tty`).
pub fn needs_terminal(program: &str, args: &[String]) -> bool {
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.as_str() {
        "emacs" | "emacsclient" => args
            .iter()
            .any(|a| matches!(a.as_str(), "-nw" | "-t" | "--tty" | "--no-window-system")),
        other => TERMINAL_EDITORS.contains(&other),
    }
}

/// How `terminal` is told to run a command: the words that go between it and the command.
fn run_flag(terminal: &str) -> &'static [&'static str] {
    let name = Path::new(terminal)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.as_str() {
        "gnome-terminal" | "tilix" | "terminator" => &["--"],
        "xfce4-terminal" => &["-x"],
        "kitty" | "foot" => &[],
        "wezterm" => &["start", "--"],
        // x-terminal-emulator, konsole, alacritty, xterm and most others take -e.
        _ => &["-e"],
    }
}

/// Puts a terminal editor inside a terminal emulator: `$TERMINAL` when set, else the first of
/// [`TERMINAL_EMULATORS`] that `on_path` finds. Any other launch is returned as it is.
pub fn in_terminal_if_needed(
    launch: EditorLaunch,
    terminal_env: Option<&str>,
    on_path: &dyn Fn(&str) -> bool,
) -> Result<EditorLaunch, EditorError> {
    let EditorLaunch::Command {
        program,
        args,
        source,
    } = launch
    else {
        return Ok(launch);
    };
    if !needs_terminal(&program, &args) {
        return Ok(EditorLaunch::Command {
            program,
            args,
            source,
        });
    }
    let chosen_from_env = terminal_env
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .and_then(shlex::split)
        .filter(|words| !words.is_empty() && on_path(&words[0]));
    let mut words = match chosen_from_env {
        Some(words) => words,
        None => match TERMINAL_EMULATORS.iter().find(|t| on_path(t)) {
            Some(t) => vec![t.to_string()],
            None => {
                let mut tried: Vec<String> = Vec::new();
                if let Some(t) = terminal_env.filter(|t| !t.trim().is_empty()) {
                    tried.push(format!("$TERMINAL ({t})"));
                }
                tried.extend(TERMINAL_EMULATORS.iter().map(|t| t.to_string()));
                return Err(EditorError::NeedsTerminal {
                    editor: program,
                    source_name: source.describe(),
                    tried: tried.join(", "),
                });
            }
        },
    };
    let terminal = words.remove(0);
    words.extend(run_flag(&terminal).iter().map(|w| w.to_string()));
    words.push(program.clone());
    words.extend(args);
    Ok(EditorLaunch::InTerminal {
        terminal,
        args: words,
        editor: program,
        source,
    })
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

/// The desktop's openers for the system default application, in the order they are tried:
/// the freedesktop one, then GLib's. Each is `(program, args)` with `path` last. On a desktop
/// with neither (or where neither knows the file type) the caller opens the file some other
/// way; it never reports a file as opened that nothing opened.
pub fn system_openers(path: &Path) -> Vec<(String, Vec<String>)> {
    let file = path.to_string_lossy().into_owned();
    vec![
        ("xdg-open".to_string(), vec![file.clone()]),
        ("gio".to_string(), vec!["open".to_string(), file]),
    ]
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

    fn vim_from_visual() -> EditorLaunch {
        resolve_editor("", Some("vim"), None, Path::new("/m/x.md")).unwrap()
    }

    #[test]
    fn a_terminal_editor_runs_in_the_terminal_named_by_terminal_env() {
        let launch =
            in_terminal_if_needed(vim_from_visual(), Some("/opt/term --hold"), &|_| true).unwrap();
        assert_eq!(
            launch,
            EditorLaunch::InTerminal {
                terminal: "/opt/term".into(),
                args: ["--hold", "-e", "vim", "/m/x.md"]
                    .map(String::from)
                    .to_vec(),
                editor: "vim".into(),
                source: EditorSource::Visual,
            }
        );
    }

    #[test]
    fn without_terminal_env_the_first_emulator_on_path_is_used_with_its_own_flag() {
        let on_path = |p: &str| p == "gnome-terminal" || p == "xterm";
        let launch = in_terminal_if_needed(vim_from_visual(), None, &on_path).unwrap();
        let EditorLaunch::InTerminal { terminal, args, .. } = launch else {
            panic!("not in a terminal: {launch:?}");
        };
        assert_eq!(terminal, "gnome-terminal");
        assert_eq!(args, ["--", "vim", "/m/x.md"]);
    }

    #[test]
    fn a_terminal_env_that_is_not_installed_falls_back_to_one_that_is() {
        let on_path = |p: &str| p == "xterm";
        let launch =
            in_terminal_if_needed(vim_from_visual(), Some("nosuchterm"), &on_path).unwrap();
        assert!(
            matches!(&launch, EditorLaunch::InTerminal { terminal, .. } if terminal == "xterm"),
            "{launch:?}"
        );
    }

    #[test]
    fn no_terminal_at_all_is_an_error_that_names_the_editor_and_what_was_looked_for() {
        let err =
            in_terminal_if_needed(vim_from_visual(), Some("nosuchterm"), &|_| false).unwrap_err();
        assert_eq!(err.code(), "editor_needs_terminal");
        let text = err.to_string();
        for expected in [
            "vim",
            "$VISUAL",
            "nosuchterm",
            "x-terminal-emulator",
            "xterm",
        ] {
            assert!(text.contains(expected), "{expected} missing from: {text}");
        }
    }

    #[test]
    fn graphical_editors_and_the_system_default_are_left_alone() {
        let code = resolve_editor("code -g {path}", None, None, Path::new("/m/x.md")).unwrap();
        assert_eq!(
            in_terminal_if_needed(code.clone(), None, &|_| false).unwrap(),
            code
        );
        let emacs = resolve_editor("", Some("emacs"), None, Path::new("/m/x.md")).unwrap();
        assert_eq!(
            in_terminal_if_needed(emacs.clone(), None, &|_| false).unwrap(),
            emacs
        );
        let default = resolve_editor("", None, None, Path::new("/m/x.md")).unwrap();
        assert_eq!(
            in_terminal_if_needed(default.clone(), None, &|_| false).unwrap(),
            default
        );
    }

    #[test]
    fn emacs_told_to_stay_in_the_terminal_and_a_vim_path_need_one() {
        assert!(needs_terminal("emacs", &["-nw".into()]));
        assert!(needs_terminal("/usr/bin/nvim", &[]));
        assert!(!needs_terminal("emacsclient", &["-c".into()]));
        assert!(!needs_terminal("gvim", &[]));
    }

    #[test]
    fn unbalanced_quotes_are_an_error_naming_the_source() {
        let err = resolve_editor("code \"-g", None, None, Path::new("/m/x.md")).unwrap_err();
        assert_eq!(err.code(), "invalid_editor_command");
        assert!(err.to_string().contains("editor.command"), "{err}");
    }
}
