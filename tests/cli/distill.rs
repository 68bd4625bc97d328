//! `ambry memory distill` with a stand-in agent (a script speaking Claude Code's
//! `--output-format json`): the guard rails that need no real client — the hook marker, the
//! dry run, the budget, the switch in config, the store refusing a secret in a proposal. The
//! real clients are driven in `real_clients::distill`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::{json, Value};

use crate::support::Sandbox;

/// A stand-in for `claude -p`: logs that it ran (and its `AMBRY_DISTILL`) and its stdin, then
/// prints `answer` as Claude Code's JSON result.
fn fake_agent(dir: &Path, answer: &Value) -> PathBuf {
    let log = dir.join("calls.log");
    let answer_file = dir.join("answer.json");
    fs::write(&answer_file, answer.to_string()).unwrap();
    let script = dir.join("fake-claude");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"call AMBRY_DISTILL=$AMBRY_DISTILL\" >> '{log}'\ncat >> '{log}'\n\
             printf '{{\"type\":\"result\",\"is_error\":false,\"result\":\"\",\"structured_output\":'\n\
             cat '{answer}'\nprintf '}}\\n'\n",
            log = log.display(),
            answer = answer_file.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn calls(dir: &Path) -> String {
    fs::read_to_string(dir.join("calls.log")).unwrap_or_default()
}

fn session(sb: &Sandbox, id: &str, text: &str) {
    let dir = sb.home.path().join("sessions");
    fs::create_dir_all(&dir).unwrap();
    let lines = [
        json!({"session": {"id": id, "title": "t", "cwd": sb.cwd.path(), "model": "m"}}),
        json!({"ts": "2026-11-20T10:00:00Z", "role": "user", "text": text}),
        json!({"ts": "2026-11-20T10:00:01Z", "role": "assistant", "text": "ok"}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(dir.join(format!("{id}.jsonl")), body).unwrap();
}

fn setup(extra_config: &str, answer: &Value) -> (Sandbox, tempfile::TempDir) {
    let sb = Sandbox::new();
    let bin = tempfile::tempdir().unwrap();
    let agent = fake_agent(bin.path(), answer);
    fs::write(
        sb.home.path().join("config.toml"),
        format!(
            "[distill]\nclaude_command = \"{}\"\n{extra_config}",
            agent.display()
        ),
    )
    .unwrap();
    session(&sb, "s-one", "We always squash-merge pull requests.");
    session(&sb, "s-two", "Staging lives at staging.internal.");
    sb.ambry().args(["sessions", "index"]).assert().success();
    (sb, bin)
}

fn squash() -> Value {
    json!({"proposals": [{"action": "new", "scope": "project", "name": "merge-style",
        "type": "project", "description": "How pull requests are merged",
        "body": "Squash-merge.", "target": null, "source_turns": [1], "reason": "stated"}]})
}

#[test]
fn a_hook_inside_a_distill_child_prints_nothing() {
    let sb = Sandbox::new();
    sb.ambry()
        .args([
            "memory",
            "save",
            "deploy",
            "--type",
            "project",
            "--description",
            "Deploy",
        ])
        .args(["--body", "Deploy with the release train."])
        .assert()
        .success();
    let payload = json!({"session_id": "x", "cwd": sb.cwd.path(),
        "hook_event_name": "UserPromptSubmit", "prompt": "how do we deploy"});
    sb.ambry()
        .args(["compose", "--hook", "claude"])
        .write_stdin(payload.to_string())
        .assert()
        .success()
        .stdout(predicate::str::contains("<ambry-memory>"));
    sb.ambry()
        .env("AMBRY_DISTILL", "1")
        .args(["compose", "--hook", "claude"])
        .write_stdin(payload.to_string())
        .assert()
        .success()
        .stdout("");
}

#[test]
fn a_dry_run_counts_calls_and_tokens_and_starts_nothing() {
    let (sb, bin) = setup("", &squash());
    let out = sb
        .ambry()
        .args(["--json", "memory", "distill", "--project", "--dry-run"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["calls"].as_array().unwrap().len(), 2, "{report}");
    assert!(report["estimated_tokens"].as_u64().unwrap() > 0);
    assert_eq!(calls(bin.path()), "", "the agent was not started");
}

#[test]
fn the_child_gets_the_marker_and_the_budget_leaves_the_rest_for_later() {
    let (sb, bin) = setup("max_calls = 1\n", &squash());
    let out = sb
        .ambry()
        .args(["--json", "memory", "distill", "--project"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["calls"].as_array().unwrap().len(), 1);
    assert_eq!(
        report["over_budget"].as_array().unwrap().len(),
        1,
        "{report}"
    );
    let log = calls(bin.path());
    assert_eq!(log.matches("call AMBRY_DISTILL=1").count(), 1, "{log}");
}

#[test]
fn switched_off_in_config_it_refuses_to_run() {
    let (sb, bin) = setup("enabled = false\n", &squash());
    sb.ambry()
        .args(["--json", "memory", "distill", "--project"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("distill_disabled"));
    assert_eq!(calls(bin.path()), "");
}

#[test]
fn a_proposal_holding_a_secret_is_refused_and_never_stored() {
    let mut answer = squash();
    answer["proposals"][0]["body"] = json!("deploy token ghp_0123456789abcdefghijABCDEFGHIJ012345");
    let (sb, _bin) = setup("", &answer);
    let out = sb
        .ambry()
        .args(["--json", "memory", "distill", "--session", "s-one"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["proposals"].as_array().unwrap().is_empty());
    assert!(report["refused"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("secret"));
    let pending = fs::read_to_string(sb.home.path().join("distill/proposals.json")).unwrap();
    assert!(!pending.contains("ghp_"), "{pending}");
}

#[test]
fn accept_with_edits_is_logged_as_edited_and_an_unknown_id_is_a_clear_error() {
    let (sb, _bin) = setup("", &squash());
    sb.ambry()
        .args(["memory", "distill", "--session", "s-one"])
        .assert()
        .success();
    let review = sb
        .ambry()
        .args(["--json", "memory", "review"])
        .output()
        .unwrap();
    let findings: Vec<Value> = serde_json::from_slice(&review.stdout).unwrap();
    let id = findings
        .iter()
        .find(|f| f["kind"] == "proposal")
        .expect("a proposal in the inbox")["id"]
        .as_str()
        .unwrap()
        .to_string();
    sb.ambry()
        .args([
            "memory",
            "review",
            "accept",
            &id,
            "--description",
            "Merge policy",
        ])
        .assert()
        .success();
    let decisions = fs::read_to_string(sb.home.path().join("distill/decisions.jsonl")).unwrap();
    assert!(decisions.contains("\"edited\""), "{decisions}");
    sb.ambry()
        .args(["--json", "memory", "review", "reject", "p-000000000000"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("not_found"));
}

/// `ambry` on the sandbox under umask 022, the common default.
fn ambry_umask_022(sb: &Sandbox) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new("sh");
    cmd.args(["-c", "umask 022 && exec \"$@\"", "sh"])
        .arg(assert_cmd::cargo::cargo_bin("ambry"))
        .env_remove("AMBRY_HOME")
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .env("HOME", sb.home.path())
        .arg("--home")
        .arg(sb.home.path())
        .arg("--cwd")
        .arg(sb.cwd.path());
    cmd
}

/// What distill keeps in the home is private like the rest of it: its folders were created
/// 0755 and `decisions.jsonl` 0644 under umask 022.
#[test]
fn the_distill_folder_and_its_files_are_private_under_umask_022() {
    let (sb, _bin) = setup("", &squash());
    ambry_umask_022(&sb)
        .args(["memory", "distill", "--session", "s-one"])
        .assert()
        .success();
    let review = ambry_umask_022(&sb)
        .args(["--json", "memory", "review"])
        .output()
        .unwrap();
    let findings: Vec<Value> = serde_json::from_slice(&review.stdout).unwrap();
    let id = findings
        .iter()
        .find(|f| f["kind"] == "proposal")
        .expect("a proposal in the inbox")["id"]
        .as_str()
        .unwrap()
        .to_string();
    ambry_umask_022(&sb)
        .args(["memory", "review", "reject", &id])
        .assert()
        .success();
    let distill = sb.home.path().join("distill");
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&distill), 0o700, "distill/");
    let running = distill.join("running");
    assert_eq!(mode(&running), 0o700, "distill/running/");
    for view in fs::read_dir(&running).unwrap() {
        let view = view.unwrap().path();
        assert_eq!(mode(&view), 0o700, "{}", view.display());
    }
    for file in ["proposals.json", "distilled.json", "decisions.jsonl"] {
        assert_eq!(mode(&distill.join(file)), 0o600, "{file}");
    }
}
