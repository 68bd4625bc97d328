//! Memories with teeth (DESIGN §16) through the real binary: a rule set with `memory save`,
//! refused when it does not hold, listed, turned off and on, tested over past sessions, and the
//! `PreToolUse` hook's answer for both agents.

use serde_json::{json, Value};

use crate::support::Sandbox;

fn save_with_rule(
    sb: &Sandbox,
    name: &str,
    pattern: &str,
    action: &str,
) -> assert_cmd::assert::Assert {
    sb.ambry()
        .args([
            "--json",
            "memory",
            "save",
            name,
            "--type",
            "feedback",
            "--description",
            "pnpm here",
        ])
        .args(["--body", "Use pnpm; npm install breaks the lockfile."])
        .args([
            "--enforce-tool",
            "Bash",
            "--enforce-match",
            pattern,
            "--enforce-action",
            action,
        ])
        .assert()
}

fn hook(sb: &Sandbox, agent: &str, payload: Value) -> (String, String) {
    let out = sb
        .ambry()
        .env("AMBRY_NO_SERVICE", "1")
        .args(["compose", "--hook", agent])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "a hook never fails the call");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn tool_call(sb: &Sandbox, command: &str) -> Value {
    json!({"session_id": "s1", "cwd": sb.cwd.path(), "hook_event_name": "PreToolUse",
           "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"})
}

#[test]
fn a_rule_saved_from_the_cli_denies_the_call_in_both_agents_formats_and_lets_others_pass() {
    let sb = Sandbox::new();
    let saved: Value = serde_json::from_slice(
        &save_with_rule(&sb, "use-pnpm", r"\bnpm (i|install)\b", "deny")
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(saved["enforce"]["match"], r"\bnpm (i|install)\b");
    let file = std::fs::read_to_string(sb.home.path().join("memory/use-pnpm.md")).unwrap();
    assert!(
        file.contains("enforce:\n  tool: Bash\n  match: '\\bnpm (i|install)\\b'\n  action: deny\n"),
        "{file}"
    );

    for agent in ["claude", "codex"] {
        let (out, _) = hook(&sb, agent, tool_call(&sb, "npm install left-pad"));
        let answer: Value = serde_json::from_str(&out).unwrap();
        let specific = &answer["hookSpecificOutput"];
        assert_eq!(specific["hookEventName"], "PreToolUse");
        assert_eq!(specific["permissionDecision"], "deny");
        let reason = specific["permissionDecisionReason"].as_str().unwrap();
        assert!(
            reason.contains("use-pnpm") && reason.contains("npm install breaks the lockfile"),
            "{reason}"
        );
        let (out, err) = hook(&sb, agent, tool_call(&sb, "pnpm install left-pad"));
        assert_eq!(
            (out.as_str(), err.as_str()),
            ("", ""),
            "an unmatched call costs nothing visible"
        );
    }
    // A payload that is not a tool call's is a note, never a failed call.
    let (out, err) = hook(
        &sb,
        "claude",
        json!({"hook_event_name": "PreToolUse", "cwd": sb.cwd.path()}),
    );
    assert_eq!(out, "");
    assert!(err.contains("tool_name"), "{err}");

    let doctor = sb.ambry().arg("doctor").output().unwrap();
    let doctor = String::from_utf8(doctor.stdout).unwrap();
    assert!(
        doctor.contains("user scope: 1 rule(s) on: use-pnpm (deny Bash)"),
        "{doctor}"
    );

    // Off: the rule stays in the file and checks nothing; on again: it denies again.
    sb.ambry()
        .args(["memory", "enforce", "off", "use-pnpm"])
        .assert()
        .success();
    assert_eq!(hook(&sb, "claude", tool_call(&sb, "npm i")).0, "");
    let listed: Value = serde_json::from_slice(
        &sb.ambry()
            .args(["--json", "memory", "enforce", "list"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(listed[0]["status"], "off");
    sb.ambry()
        .args(["memory", "enforce", "on", "use-pnpm"])
        .assert()
        .success();
    assert!(hook(&sb, "claude", tool_call(&sb, "npm i"))
        .0
        .contains("\"deny\""));
    // Saving the memory again without rule flags keeps its rule; --no-enforce removes it.
    let resave = |extra: &[&str]| {
        sb.ambry()
            .args(["memory", "save", "use-pnpm", "--type", "feedback"])
            .args(["--description", "pnpm here", "--body", "pnpm, always."])
            .args(extra)
            .assert()
            .success();
    };
    resave(&[]);
    assert!(hook(&sb, "claude", tool_call(&sb, "npm i"))
        .0
        .contains("pnpm, always."));
    resave(&["--no-enforce"]);
    assert_eq!(hook(&sb, "claude", tool_call(&sb, "npm i")).0, "");
}

#[test]
fn a_rule_that_does_not_hold_is_refused_naming_its_field_and_nothing_is_saved() {
    let sb = Sandbox::new();
    for (pattern, action, field) in [
        ("(", "deny", "enforce.match"),
        ("x", "block", "enforce.action"),
    ] {
        // `--json` errors end stderr as one JSON object (DESIGN §9).
        let err = save_with_rule(&sb, "bad", pattern, action)
            .failure()
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(err).unwrap();
        let error: Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
        assert_eq!(
            (error["code"].as_str(), error["field"].as_str()),
            (Some("invalid_field"), Some(field)),
            "{error}"
        );
    }
    assert!(!sb.home.path().join("memory/bad.md").exists());
    // The flags come together: a pattern without a tool is a usage error.
    sb.ambry()
        .args([
            "memory",
            "save",
            "x",
            "--type",
            "t",
            "--description",
            "d",
            "--body",
            "b",
            "--enforce-match",
            "y",
        ])
        .assert()
        .code(2);
}

#[test]
fn enforce_test_lists_the_past_calls_a_rule_would_have_caught() {
    let sb = Sandbox::new();
    save_with_rule(&sb, "use-pnpm", r"\bnpm (i|install)\b", "deny").success();
    let dir = sb.home.path().join(".claude/projects/-w");
    std::fs::create_dir_all(&dir).unwrap();
    let call = |i: u32, command: &str| {
        json!({"type": "assistant", "sessionId": "past", "cwd": "/w", "timestamp": format!("2026-10-01T10:00:0{i}Z"),
               "message": {"role": "assistant", "content": [{"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": command}}]}})
        .to_string()
    };
    let prompt = json!({"type": "user", "sessionId": "past", "cwd": "/w", "timestamp": "2026-10-01T10:00:00Z", "message": {"role": "user", "content": "add a dep"}});
    std::fs::write(
        dir.join("past.jsonl"),
        [
            prompt.to_string(),
            call(1, "npm install left-pad"),
            call(2, "pnpm add x"),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    sb.ambry().args(["sessions", "index"]).assert().success();
    let out = sb
        .ambry()
        .args(["--json", "memory", "enforce", "test", "use-pnpm"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["calls"], 2);
    let caught = report["caught"].as_array().unwrap();
    assert_eq!(caught.len(), 1, "{report}");
    assert_eq!(
        (
            caught[0]["session_id"].as_str(),
            caught[0]["input"].as_str()
        ),
        (Some("past"), Some("npm install left-pad"))
    );
    let text = sb
        .ambry()
        .args(["memory", "enforce", "test", "use-pnpm"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("would have caught 1") && text.contains("$ npm install left-pad"),
        "{text}"
    );
}
