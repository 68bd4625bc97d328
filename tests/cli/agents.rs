//! `ambry connect|disconnect`, `ambry compose --hook codex` and the agents' lines in
//! `ambry doctor`, on temporary homes (`ambry import claude` is in `import.rs`).

use std::fs;
use std::path::Path;

use predicates::prelude::*;
use serde_json::Value;

use crate::support::Sandbox;

fn ambry(sb: &Sandbox) -> assert_cmd::Command {
    let mut cmd = sb.ambry();
    cmd.env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env("AMBRY_NO_SERVICE", "1");
    cmd
}

const SETTINGS: &str = "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"guard\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";

#[test]
fn connect_claude_round_trip_through_the_binary() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    fs::create_dir_all(home.join(".claude")).unwrap();
    fs::write(home.join(".claude/settings.json"), SETTINGS).unwrap();

    let out = ambry(&sb)
        .args(["--json", "connect", "claude", "--dry-run"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["dry_run"], true);
    assert_eq!(report["changed"], true);
    assert_eq!(
        fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        SETTINGS
    );
    assert!(
        !home.join(".claude.json").exists(),
        "a dry run creates nothing"
    );

    ambry(&sb)
        .args(["connect", "claude"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Claude Code connected"));
    let settings: Value =
        serde_json::from_str(&fs::read_to_string(home.join(".claude/settings.json")).unwrap())
            .unwrap();
    let command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    // The sandbox's home is not ~/.ambry, so the hook and the server both name it.
    let pinned = format!("--home {} compose --hook claude", home.display());
    assert!(
        command.ends_with(&pinned) && command.starts_with('/'),
        "{command}"
    );
    assert_eq!(
        settings["hooks"]["SessionStart"][0]["hooks"][0],
        serde_json::json!({"type": "command", "command": command, "timeout": 10})
    );
    let state: Value =
        serde_json::from_str(&fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        state["mcpServers"]["ambry"]["args"],
        serde_json::json!(["--home", home, "mcp"])
    );
    assert!(Path::new(state["mcpServers"]["ambry"]["command"].as_str().unwrap()).is_file());

    ambry(&sb)
        .args(["connect", "claude"])
        .assert()
        .success()
        .stdout(predicate::str::contains("already connected"));
    let out = ambry(&sb).args(["--json", "doctor"]).output().unwrap();
    let doctor: Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines: Vec<String> = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{} {}", c["area"], c["detail"]))
        .collect();
    assert!(
        // "connected (…)" where `claude` is found, "configured (…); `claude` not found on PATH"
        // where it is not: both parts are installed either way.
        lines
            .iter()
            .any(|l| l.contains("claude code")
                && l.contains("(hook: installed; MCP server: installed)")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("deletes transcripts older than 30 days")
                && l.contains("keeps them")),
        "{lines:?}"
    );

    ambry(&sb).args(["disconnect", "claude"]).assert().success();
    assert_eq!(
        fs::read_to_string(home.join(".claude/settings.json")).unwrap(),
        SETTINGS
    );
    assert!(
        !home.join(".claude.json").exists(),
        "connect created .claude.json; back to nothing else, it goes"
    );
    assert_eq!(
        backups(&home.join(".claude")).len(),
        1,
        "one backup of settings.json from connect; the disconnect restored those very bytes"
    );
    assert!(
        backups(home).is_empty(),
        "no backup of a file connect created"
    );
}

/// The `*.ambry-backup-*` files in `dir`.
fn backups(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".ambry-backup-"))
        .collect()
}

/// Hand-formatted files: odd indentation, keys on one line, an empty `hooks` object, a
/// comment in the TOML. A connect/disconnect cycle must give each back byte for byte.
const HAND_SETTINGS: &str = "{\n    \"theme\" : \"dark\",\n    \"model\": \"opus\",\n    \"verbose\": true,\n    \"hooks\": {},\n    \"env\": {\"A\": \"1\", \"B\": [1, 2]}\n}\n";
const HAND_STATE: &str =
    "{\"numStartups\":3,\"mcpServers\":{},\"projects\":{\"/r\":{\"allowedTools\":[]}}}";
const HAND_HOOKS: &str = "{\n\t\"hooks\": {\n\t\t\"Stop\": [ {\"hooks\": [ {\"type\": \"command\", \"command\": \"notify\"} ]} ]\n\t}\n}\n";
const HAND_CONFIG: &str =
    "# mine\nmodel = \"o4\"   # fast\n\n[mcp_servers]\n\n[mcp_servers.docs]\ncommand = \"npx\"\n";

#[test]
fn a_cycle_leaves_hand_formatted_files_byte_for_byte() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    fs::create_dir_all(home.join(".claude")).unwrap();
    fs::create_dir_all(home.join(".codex")).unwrap();
    let files = [
        (home.join(".claude/settings.json"), HAND_SETTINGS),
        (home.join(".claude.json"), HAND_STATE),
        (home.join(".codex/hooks.json"), HAND_HOOKS),
        (home.join(".codex/config.toml"), HAND_CONFIG),
    ];
    for (path, text) in &files {
        fs::write(path, text).unwrap();
    }
    for agent in ["claude", "codex"] {
        let out = ambry(&sb).args(["connect", agent]).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(
            !shown.contains("\"theme\""),
            "the diff shows the change, not the whole file:\n{shown}"
        );
    }
    let settings = fs::read_to_string(home.join(".claude/settings.json")).unwrap();
    assert!(
        settings.starts_with(
            "{\n    \"theme\" : \"dark\",\n    \"model\": \"opus\",\n    \"verbose\": true,\n    \"hooks\": {\n        \"SessionStart\" : ["
        ),
        "edited in place, in the file's own indentation:\n{settings}"
    );
    let config = fs::read_to_string(home.join(".codex/config.toml")).unwrap();
    assert!(
        config.contains(&format!(
            "args = [\"--home\", \"{}\", \"mcp\"]",
            home.display()
        )) && config.contains("env_vars = [\"AMBRY_HOME\", \"AMBRY_MODELS_DIR\"]"),
        "{config}"
    );
    let hooks = fs::read_to_string(home.join(".codex/hooks.json")).unwrap();
    assert!(
        hooks.contains(&format!("--home {} compose --hook codex", home.display())),
        "{hooks}"
    );
    for agent in ["claude", "codex"] {
        ambry(&sb).args(["disconnect", agent]).assert().success();
    }
    for (path, text) in &files {
        assert_eq!(
            &fs::read_to_string(path).unwrap(),
            text,
            "{}",
            path.display()
        );
    }
    assert_eq!(backups(&home.join(".claude")).len(), 1);
    assert_eq!(
        backups(&home.join(".codex")).len(),
        2,
        "config.toml and hooks.json, once each"
    );
    assert!(
        !home.join("agent-connections.json").exists(),
        "the record goes with the last entry"
    );
}

#[test]
fn refused_files_are_left_untouched_without_a_backup() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    fs::create_dir_all(home.join(".claude")).unwrap();
    fs::create_dir_all(home.join("elsewhere")).unwrap();
    // A link: the file belongs to something else (a dotfiles repo); Ambry does not write through it.
    fs::write(home.join("elsewhere/settings.json"), "{}\n").unwrap();
    std::os::unix::fs::symlink(
        home.join("elsewhere/settings.json"),
        home.join(".claude/settings.json"),
    )
    .unwrap();
    ambry(&sb)
        .args(["--json", "connect", "claude"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not_a_regular_file"));
    fs::remove_file(home.join(".claude/settings.json")).unwrap();
    // Read-only.
    fs::write(home.join(".claude/settings.json"), "{}\n").unwrap();
    let mut perms = fs::metadata(home.join(".claude/settings.json"))
        .unwrap()
        .permissions();
    perms.set_readonly(true);
    fs::set_permissions(home.join(".claude/settings.json"), perms).unwrap();
    ambry(&sb)
        .args(["--json", "connect", "claude"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("read_only_agent_file"));
    // An `ambry` server entry that runs something else is not replaced.
    fs::remove_file(home.join(".claude/settings.json")).unwrap();
    let foreign =
        "{\"mcpServers\": {\"ambry\": {\"command\": \"npx\", \"args\": [\"other-ambry\"]}}}";
    fs::write(home.join(".claude.json"), foreign).unwrap();
    ambry(&sb)
        .args(["--json", "connect", "claude"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("foreign_agent_entry"));
    assert_eq!(
        fs::read_to_string(home.join(".claude.json")).unwrap(),
        foreign
    );
    assert!(
        !home.join(".claude/settings.json").exists(),
        "nothing written when any file is refused"
    );
    assert!(backups(&home.join(".claude")).is_empty() && backups(home).is_empty());
}

/// Codex's trust as doctor and connect show it: untrusted after a plain connect, trusted after
/// `--trust`, changed once the hook's command changes (a moved binary).
#[test]
fn codex_trust_is_shown_and_written_only_when_asked() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    fs::create_dir_all(home.join(".codex")).unwrap();
    let out = ambry(&sb).args(["connect", "codex"]).output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("Codex SessionStart hook: not trusted yet") && shown.contains("/hooks"),
        "{shown}"
    );
    assert!(!fs::read_to_string(home.join(".codex/config.toml"))
        .unwrap()
        .contains("hooks.state"));
    let doctor = doctor_lines(&sb);
    assert!(
        doctor
            .iter()
            .any(|l| l.contains("UserPromptSubmit hook: not trusted yet")),
        "{doctor:?}"
    );

    let dry = ambry(&sb)
        .args(["connect", "codex", "--trust", "--dry-run"])
        .output()
        .unwrap();
    let dry = String::from_utf8_lossy(&dry.stdout);
    assert!(
        dry.contains("+[hooks.state.") && dry.contains("trusted_hash"),
        "the planned diff shows it:\n{dry}"
    );
    ambry(&sb)
        .args(["connect", "codex", "--trust"])
        .assert()
        .success();
    let doctor = doctor_lines(&sb);
    assert!(
        doctor
            .iter()
            .any(|l| l.contains("SessionStart hook: trusted")),
        "{doctor:?}"
    );
    assert!(
        doctor
            .iter()
            .any(|l| l.contains("UserPromptSubmit hook: trusted")),
        "{doctor:?}"
    );

    let hooks = fs::read_to_string(home.join(".codex/hooks.json")).unwrap();
    let program = hooks
        .split("\"command\": \"")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    fs::write(
        home.join(".codex/hooks.json"),
        hooks.replace(&program, "/moved/ambry"),
    )
    .unwrap();
    let doctor = doctor_lines(&sb);
    assert!(
        doctor
            .iter()
            .any(|l| l.contains("changed since you trusted it")),
        "{doctor:?}"
    );

    live_codex_agrees(home, &program);
}

/// Codex keys hook trust by the real path of `$CODEX_HOME/hooks.json`: with a `CODEX_HOME`
/// through a link, or relative, `--trust` writes the key under the real path, doctor reads it
/// back as trusted, and an entry under the path as given (which Codex never finds) is not
/// reported as trusted.
#[test]
fn codex_trust_keys_use_the_real_path_of_a_linked_or_relative_codex_home() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    let real = home.join("real-codex");
    fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&real, home.join("codex-link")).unwrap();
    let real_hooks = fs::canonicalize(&real).unwrap().join("hooks.json");
    let linked_hooks = home.join("codex-link/hooks.json");
    let with_codex_home = |value: &str| {
        let mut cmd = ambry(&sb);
        cmd.env("CODEX_HOME", value).current_dir(home);
        cmd
    };
    let verdicts = |value: &str| -> Vec<String> {
        let out = with_codex_home(value)
            .args(["--json", "doctor"])
            .output()
            .unwrap();
        let doctor: Value = serde_json::from_slice(&out.stdout).unwrap();
        doctor["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["detail"].as_str())
            .filter(|d| {
                [
                    "SessionStart hook",
                    "UserPromptSubmit hook",
                    "PreToolUse hook",
                ]
                .iter()
                .any(|event| d.contains(event))
            })
            .map(str::to_string)
            .collect()
    };
    let all_trusted =
        |lines: &[String]| lines.len() == 3 && lines.iter().all(|l| l.ends_with("hook: trusted"));

    with_codex_home(&home.join("codex-link").display().to_string())
        .args(["connect", "codex", "--trust"])
        .assert()
        .success();
    let config = fs::read_to_string(real.join("config.toml")).unwrap();
    assert!(
        config.contains(&format!("{}:session_start", real_hooks.display()))
            && config.contains(&format!("{}:user_prompt_submit", real_hooks.display())),
        "{config}"
    );
    assert!(!config.contains("codex-link"), "{config}");
    for codex_home in [
        home.join("codex-link").display().to_string(),
        "codex-link".to_string(),
        "./codex-link/".to_string(),
    ] {
        let lines = verdicts(&codex_home);
        assert!(all_trusted(&lines), "CODEX_HOME={codex_home}: {lines:?}");
    }

    // The same entries under the unresolved path: Codex skips the hooks, and so doctor says.
    fs::write(
        real.join("config.toml"),
        config.replace(
            &real_hooks.display().to_string(),
            &linked_hooks.display().to_string(),
        ),
    )
    .unwrap();
    let lines = verdicts(&home.join("codex-link").display().to_string());
    assert!(
        lines.len() == 3 && lines.iter().all(|l| l.contains("not trusted yet")),
        "{lines:?}"
    );
}

fn doctor_lines(sb: &Sandbox) -> Vec<String> {
    let out = ambry(sb).args(["--json", "doctor"]).output().unwrap();
    let doctor: Value = serde_json::from_slice(&out.stdout).unwrap();
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{} {} {}", c["status"], c["area"], c["detail"]))
        .collect()
}

/// With the real Codex (`AMBRY_TEST_CODEX`, else the real-client harness's), its own
/// `codex app-server` judges the same files: SessionStart trusted, UserPromptSubmit modified.
fn live_codex_agrees(home: &Path, program: &str) {
    // The real-client harness's Codex unless AMBRY_TEST_CODEX names another; a missing one
    // fails here on every machine (never a silent pass).
    let codex = std::env::var_os("AMBRY_TEST_CODEX")
        .filter(|c| !c.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| crate::real_clients::world::client("codex"));
    // Re-point UserPromptSubmit only, so the two verdicts differ.
    let hooks = fs::read_to_string(home.join(".codex/hooks.json")).unwrap();
    let ups = hooks.find("UserPromptSubmit").unwrap();
    let (head, tail) = hooks.split_at(ups);
    fs::write(
        home.join(".codex/hooks.json"),
        head.replace("/moved/ambry", program) + tail,
    )
    .unwrap();
    let ours = doctor_verdicts(home);
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"ambry-test","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":["/"]}}"#,
    ];
    let mut child = std::process::Command::new(codex)
        .arg("app-server")
        .env("HOME", home)
        .env("CODEX_HOME", home.join(".codex"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    use std::io::{BufRead, Write};
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    let reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut listed = None;
    for line in reader.lines() {
        let line = line.unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if v["id"] == 2 {
            listed = Some(v);
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let listed = listed.expect("codex app-server answered hooks/list");
    let theirs: Vec<(String, String)> = listed["result"]["data"][0]["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["eventName"].as_str().unwrap().to_string(),
                h["trustStatus"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        theirs,
        [
            ("preToolUse".to_string(), "modified".to_string()),
            ("sessionStart".to_string(), "trusted".to_string()),
            ("userPromptSubmit".to_string(), "modified".to_string())
        ]
    );
    // The same three verdicts (the file re-pointed from UserPromptSubmit on, so PreToolUse too).
    assert_eq!(ours, ["trusted", "changed", "changed"]);
}

fn doctor_verdicts(home: &Path) -> Vec<String> {
    let mut cmd = assert_cmd::Command::cargo_bin("ambry").unwrap();
    let out = cmd
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .env_remove("AMBRY_HOME")
        .args(["--home", &home.display().to_string(), "--json", "doctor"])
        .output()
        .unwrap();
    let doctor: Value = serde_json::from_slice(&out.stdout).unwrap();
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["detail"].as_str())
        .filter(|d| {
            d.starts_with("SessionStart hook: ")
                || d.starts_with("UserPromptSubmit hook: ")
                || d.starts_with("PreToolUse hook: ")
        })
        .map(|d| {
            if d.contains("changed since") {
                "changed".into()
            } else if d.contains(": trusted") {
                "trusted".into()
            } else {
                "untrusted".into()
            }
        })
        .collect()
}

#[test]
fn connect_refuses_a_broken_file_and_leaves_it() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    fs::create_dir_all(home.join(".codex")).unwrap();
    fs::write(home.join(".codex/config.toml"), "[mcp_servers\n").unwrap();
    ambry(&sb)
        .args(["--json", "connect", "codex"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("config.toml does not parse")
                .and(predicate::str::contains("unparseable_agent_file")),
        );
    assert_eq!(
        fs::read_to_string(home.join(".codex/config.toml")).unwrap(),
        "[mcp_servers\n"
    );
    assert!(!home.join(".codex/hooks.json").exists());
}

#[test]
fn the_codex_hook_answers_with_added_context() {
    let sb = Sandbox::new();
    ambry(&sb)
        .args([
            "memory",
            "save",
            "deploy-steps",
            "--type",
            "project",
            "--description",
            "How releases ship",
            "--scope",
            "user",
            "--body",
            "Tag then push; CI deploys.",
        ])
        .assert()
        .success();
    let payload = serde_json::json!({
        "session_id": "019a-codex",
        "transcript_path": null,
        "cwd": sb.cwd.path(),
        "hook_event_name": "UserPromptSubmit",
        "model": "gpt-5-codex",
        "prompt": "how do we ship a release?"
    });
    let out = ambry(&sb)
        .args(["compose", "--hook", "codex"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        reply["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    let context = reply["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.starts_with("<ambry-memory>") && context.contains("### deploy-steps"),
        "{context}"
    );
    ambry(&sb)
        .args(["compose", "--hook", "codex"])
        .write_stdin("nope")
        .assert()
        .code(0)
        .stdout("")
        .stderr(predicate::str::contains("Codex"));
}
