//! The real binary against hostile input: closed pipes, bad counts, misleading OS errors, homes and
//! source directories that are files, archive names with paths, and leaked secrets to purge.

use std::io::Read;
use std::process::{Command as StdCommand, Stdio};

use predicates::prelude::*;

use crate::support::Sandbox;

fn save(sb: &Sandbox, name: &str, body: &str) {
    sb.ambry()
        .args([
            "memory",
            "save",
            name,
            "--type",
            "user",
            "--description",
            &format!("about {name}"),
            "--body",
            body,
        ])
        .assert()
        .success();
}

/// Runs `ambry ARGS` with stdout read for 10 bytes and then closed, like `| head -c 10`.
fn with_closed_pipe(sb: &Sandbox, args: &[&str]) -> (Option<i32>, String) {
    let bin = assert_cmd::cargo::cargo_bin("ambry");
    let mut child = StdCommand::new(bin)
        .env_remove("AMBRY_HOME")
        .env("HOME", sb.home.path())
        .env("AMBRY_NO_SERVICE", "1")
        .arg("--home")
        .arg(sb.home.path())
        .arg("--cwd")
        .arg(sb.cwd.path())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 10];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (child.wait().unwrap().code(), stderr)
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    let sb = Sandbox::new();
    // Written as files (faster than 300 saves): more output than a pipe buffers (64 KiB), so the
    // writer meets the closed pipe.
    let dir = sb.home.path().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..300 {
        let description = format!("deploy notes {i} {}", "release ".repeat(50));
        std::fs::write(
            dir.join(format!("memory-{i:03}.md")),
            format!(
                "---\nname: memory-{i:03}\ntype: user\ndescription: {description}\n---\ndeploy\n"
            ),
        )
        .unwrap();
    }
    // Enough output that the pipe's buffer fills after the reader is gone.
    let bulk: String = (0..3000)
        .map(|i| format!("deploy step {i} of the release\n"))
        .collect();
    save(&sb, "bulk", &bulk);
    for args in [
        &["memory", "list"][..],
        &["memory", "get", "bulk"],
        &["memory", "search", "deploy"],
        &["memory", "list", "--json"],
    ] {
        let (code, stderr) = with_closed_pipe(&sb, args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn zero_and_huge_counts_are_usage_errors() {
    let sb = Sandbox::new();
    for args in [
        &["recall", "x", "--limit", "0"][..],
        &["recall", "x", "--limit", "18446744073709551615"],
        &["memory", "search", "x", "--limit", "0"],
        &["sessions", "list", "--limit", "0"],
    ] {
        sb.ambry()
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("between 1 and"));
    }
}

#[test]
fn os_errors_are_said_once() {
    let sb = Sandbox::new();
    let dir = sb.cwd.path().join("a-directory");
    std::fs::create_dir(&dir).unwrap();
    let out = sb
        .ambry()
        .args([
            "memory",
            "save",
            "x",
            "--type",
            "user",
            "--description",
            "d",
            "--body-file",
        ])
        .arg(&dir)
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    // Refused by kind before any read (no OS error to repeat), and said once.
    assert_eq!(stderr.matches("is a directory").count(), 1, "{stderr}");
}

#[test]
fn a_home_that_is_a_file_is_named_as_such() {
    let sb = Sandbox::new();
    let file = sb.cwd.path().join("home-file");
    std::fs::write(&file, "x").unwrap();
    assert_cmd::Command::cargo_bin("ambry")
        .unwrap()
        .arg("--home")
        .arg(&file)
        .args(["memory", "list"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is a file, not a directory"));
}

/// A hook exits 0 whatever is wrong, saying so on stderr: a bad config and a home that is a
/// file alike (an exit 1 is shown to the person as a hook failure on every turn).
#[test]
fn the_hook_exits_0_on_a_bad_config_and_on_a_home_that_is_a_file() {
    let sb = Sandbox::new();
    let payload = format!(
        "{{\"hook_event_name\": \"UserPromptSubmit\", \"prompt\": \"hello\", \"session_id\": \"s\", \"cwd\": {:?}}}",
        sb.cwd.path()
    );
    std::fs::write(sb.home.path().join("config.toml"), "[retrieval\n").unwrap();
    sb.ambry()
        .args(["compose", "--hook", "claude"])
        .write_stdin(payload.clone())
        .timeout(crate::hostile::HANG)
        .assert()
        .code(0);
    let file = sb.cwd.path().join("home-file");
    std::fs::write(&file, "x").unwrap();
    assert_cmd::Command::cargo_bin("ambry")
        .unwrap()
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .arg("--home")
        .arg(&file)
        .args(["compose", "--hook", "claude"])
        .write_stdin(payload)
        .timeout(crate::hostile::HANG)
        .assert()
        .code(0)
        .stdout("")
        .stderr(predicate::str::contains("is a file, not a directory"));
}

#[test]
fn a_claude_config_dir_that_is_a_file_is_reported_and_the_rest_indexed() {
    let sb = Sandbox::new();
    let file = sb.cwd.path().join("claude-config");
    std::fs::write(&file, "x").unwrap();
    std::fs::create_dir_all(sb.home.path().join("sessions")).unwrap();
    std::fs::write(
        sb.home.path().join("sessions/s.jsonl"),
        "{\"ts\":\"2026-06-01T10:00:00Z\",\"role\":\"user\",\"text\":\"tango\"}\n",
    )
    .unwrap();
    sb.ambry()
        .env("CLAUDE_CONFIG_DIR", &file)
        .args(["sessions", "index"])
        .assert()
        .success()
        .stderr(predicate::str::contains("is not a directory"))
        .stdout(predicate::str::contains("indexed 1 new message"));
}

#[test]
fn archive_names_are_validated() {
    let sb = Sandbox::new();
    sb.ambry()
        .args(["memory", "archive", "list", "../x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("invalid name"));
}

#[test]
fn not_found_says_where_it_looked() {
    let sb = Sandbox::new();
    sb.ambry()
        .args(["memory", "get", "nope"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no memory named `nope` in the"));
}

#[test]
fn doctor_finds_a_leaked_secret_in_the_archive_and_purge_removes_it() {
    let sb = Sandbox::new();
    save(&sb, "db", "connect as app");
    save(&sb, "db", "the password is in the vault");
    let archive = sb.home.path().join("memory/.archive");
    let entry = std::fs::read_dir(&archive)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(
        &entry,
        "---\nname: db\ntype: user\ndescription: about db\n---\nDATABASE_PASSWORD=hunter2hunter2\n",
    )
    .unwrap();
    let version = entry
        .file_name()
        .unwrap()
        .to_string_lossy()
        .trim_start_matches("db.")
        .trim_end_matches(".md")
        .to_string();
    sb.ambry().arg("doctor").assert().code(1).stdout(
        predicate::str::contains("looks like a secret").and(predicate::str::contains(format!(
            "archive purge db {version}"
        ))),
    );
    sb.ambry()
        .args(["memory", "archive", "purge", "db", &version])
        .assert()
        .success();
    assert!(!entry.exists());
    let out = sb.ambry().arg("doctor").output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("looks like a secret"));
}

/// DESIGN §9: a request the CLI cannot carry out as given is a usage error — exit 2, code
/// `usage` — as a flag clap rejects is (it exited 1 with code `failed`).
#[test]
fn usage_errors_exit_2_with_code_usage() {
    let sb = Sandbox::new();
    let out = sb
        .ambry()
        .args(["--json", "connect", "claude", "--trust"])
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let stderr = String::from_utf8_lossy(&out);
    assert!(stderr.contains(r#""code":"usage""#), "{stderr}");
    assert!(stderr.contains("trust is for connecting Codex"), "{stderr}");
}
