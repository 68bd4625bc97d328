//! `ambry memory distill` with a stand-in agent (a script speaking Claude Code's
//! `--output-format json`): the guard rails that need no real client — the hook marker, the
//! dry run, the budget, the switch in config, the store refusing a secret in a proposal, the
//! cap on what the agent prints, no process of the agent's outliving the run (nor a SIGTERM to
//! `ambry`), what the agent printed quoted as text only, Claude Code giving up on the schema
//! said as such, `--since` across projects, and the session's own source in `source:`. The
//! real clients are driven in `real_clients::distill`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use serde_json::{json, Value};

use crate::support::{answered, stub_agent, stub_log, Sandbox};

/// A stand-in for `claude -p` answering `answer` as Claude Code's structured output.
fn fake_agent(dir: &Path, answer: &Value) -> PathBuf {
    stub_agent(dir, &answered(answer.clone()), 0)
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
    let bin = tempfile::tempdir().unwrap();
    let agent = fake_agent(bin.path(), answer);
    (setup_agent(extra_config, &agent), bin)
}

/// A sandbox with two indexed sessions in its project and `agent` as `claude_command`.
fn setup_agent(extra_config: &str, agent: &Path) -> Sandbox {
    let sb = Sandbox::new();
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
    sb
}

/// An executable shell script `name` in `dir` standing in for the agent.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Kills the processes it holds when dropped (a failing test too): no test leaves one running.
struct Reap(Vec<u32>);

impl Drop for Reap {
    fn drop(&mut self) {
        for pid in &self.0 {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Whether process `pid` still runs: `kill -0` reaches it and it is not a zombie (a killed
/// orphan waits there for whoever adopted it to reap it; it runs nothing).
fn running(pid: u32) -> bool {
    let reached = Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    let zombie = fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let after = stat.rsplit_once(')')?.1;
            after.split_whitespace().next().map(|s| s == "Z")
        })
        .unwrap_or(false);
    reached && !zombie
}

/// Waits (bounded) for process `pid` to end: a killed process ends once the kernel has run its
/// exit, a moment after the signal; one nobody killed runs on, and this fails.
fn ends(pid: u32, what: &str) {
    let started = Instant::now();
    while running(pid) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{what} (pid {pid}) is still running"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn pids(text: &str) -> Vec<u32> {
    text.split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
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
    assert_eq!(stub_log(bin.path()), "", "the agent was not started");
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
    let log = stub_log(bin.path());
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
    assert_eq!(stub_log(bin.path()), "");
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
    let id = distilled_proposal(|| sb.ambry());
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

/// Distills session `s-one` with the commands `ambry` makes and returns the id of the proposal
/// it filed in the inbox.
fn distilled_proposal(ambry: impl Fn() -> assert_cmd::Command) -> String {
    ambry()
        .args(["memory", "distill", "--session", "s-one"])
        .assert()
        .success();
    let review = ambry()
        .args(["--json", "memory", "review"])
        .output()
        .unwrap();
    let findings: Vec<Value> = serde_json::from_slice(&review.stdout).unwrap();
    findings
        .iter()
        .find(|f| f["kind"] == "proposal")
        .expect("a proposal in the inbox")["id"]
        .as_str()
        .unwrap()
        .to_string()
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
    let id = distilled_proposal(|| ambry_umask_022(&sb));
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

#[test]
fn an_agent_printing_without_end_is_stopped_at_the_cap() {
    let bin = tempfile::tempdir().unwrap();
    let finished = bin.path().join("finished");
    // 8 MiB, far past the 512 KiB cap and the pipe's buffer: stopped at the cap, the agent
    // never gets to its next line (before: all of it went to a temp file and the agent went on).
    let agent = script(
        bin.path(),
        "fake-claude",
        &format!(
            "cat > /dev/null\nhead -c 8388608 /dev/zero | tr '\\0' x\ntouch '{}'\n",
            finished.display()
        ),
    );
    let sb = setup_agent("", &agent);
    let out = sb
        .ambry()
        .args(["--json", "memory", "distill", "--session", "s-one"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("answer_too_large"), "{stderr}");
    assert!(
        stderr.contains("more than 512 KiB on its stdout"),
        "{stderr}"
    );
    assert!(
        !finished.exists(),
        "the agent was stopped at the cap, not left to print all it had"
    );
}

#[test]
fn no_process_the_agent_started_outlives_the_run() {
    let bin = tempfile::tempdir().unwrap();
    let pid_file = bin.path().join("grandchild.pid");
    let agent = script(
        bin.path(),
        "fake-claude",
        &format!(
            "sleep 1000 &\necho $! > '{}'\ncat > /dev/null\n\
             printf '%s\\n' '{{\"type\":\"result\",\"is_error\":false,\"result\":\"\",\"structured_output\":{{\"proposals\":[]}}}}'\n",
            pid_file.display()
        ),
    );
    let sb = setup_agent("", &agent);
    let out = sb
        .ambry()
        .args(["--json", "memory", "distill", "--session", "s-one"])
        .output()
        .unwrap();
    let grandchild = pids(&fs::read_to_string(&pid_file).unwrap());
    let _reap = Reap(grandchild.clone());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ends(grandchild[0], "the agent's own child, after the run");
}

#[test]
fn sigterm_sighup_or_sigint_to_ambry_ends_the_agent_and_what_it_started() {
    for signal in ["TERM", "HUP", "INT"] {
        let bin = tempfile::tempdir().unwrap();
        let fifo = bin.path().join("started");
        assert!(Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        // The agent says it started (its pid and its child's) through a FIFO the test reads:
        // the read returns once the agent has written, no sooner.
        let agent = script(
            bin.path(),
            "fake-claude",
            &format!(
                "sleep 1000 &\necho \"$$ $!\" > '{}'\nwait\n",
                fifo.display()
            ),
        );
        let sb = setup_agent("timeout_secs = 300\n", &agent);
        let mut ambry = Command::new(assert_cmd::cargo::cargo_bin("ambry"));
        ambry
            .env_remove("AMBRY_HOME")
            .env("AMBRY_SERVICE_AUTOSTART", "0")
            .env("HOME", sb.home.path())
            .arg("--home")
            .arg(sb.home.path())
            .arg("--cwd")
            .arg(sb.cwd.path())
            .args(["--json", "memory", "distill", "--session", "s-one"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut ambry = ambry.spawn().unwrap();
        let mut reap = Reap(vec![ambry.id()]);
        let (tx, rx) = std::sync::mpsc::channel();
        let reading = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(fs::read_to_string(reading));
        });
        let started = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(text) => pids(&text.unwrap()),
            Err(_) => panic!("the agent never started"),
        };
        reap.0.extend(&started);
        let ok = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(ambry.id().to_string())
            .status()
            .unwrap();
        assert!(ok.success());
        let status = ambry.wait().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(ambry.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        assert!(!status.success(), "SIG{signal}: {stderr}");
        assert!(stderr.contains("stopped"), "SIG{signal}: {stderr}");
        ends(
            started[0],
            &format!("the agent, after SIG{signal} to ambry"),
        );
        ends(
            started[1],
            &format!("the agent's child, after SIG{signal} to ambry"),
        );
    }
}

#[test]
fn what_the_agent_printed_reaches_the_terminal_as_text_only() {
    let bin = tempfile::tempdir().unwrap();
    let agent = script(
        bin.path(),
        "fake-claude",
        "cat > /dev/null\nprintf '\\033]0;owned\\007\\033[31mno credits left\\033[0m\\r\\n\\033[2J' >&2\nexit 3\n",
    );
    let sb = setup_agent("", &agent);
    let out = sb
        .ambry()
        .args(["memory", "distill", "--session", "s-one"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("no credits left"), "{stderr}");
    assert!(
        !stderr
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{stderr:?}"
    );
}

#[test]
fn a_claude_agent_that_gives_up_on_the_schema_says_so_not_its_usage() {
    // What Claude Code 2.1 prints (and exits 1 with) when the model fails the schema on every
    // try: the result with its usage statistics and the reason last.
    let result = json!({"type": "result", "subtype": "error_max_structured_output_retries",
        "duration_ms": 51234, "is_error": true, "num_turns": 6, "session_id": "x",
        "total_cost_usd": 0.21, "usage": {"input_tokens": 5123, "output_tokens": 2048},
        "permission_denials": [],
        "errors": ["Failed to provide valid structured output after 5 attempts"]});
    let bin = tempfile::tempdir().unwrap();
    let printed = bin.path().join("result.json");
    fs::write(&printed, result.to_string()).unwrap();
    let agent = script(
        bin.path(),
        "fake-claude",
        &format!("cat > /dev/null\ncat '{}'\nexit 1\n", printed.display()),
    );
    let sb = setup_agent("", &agent);
    let out = sb
        .ambry()
        .args(["memory", "distill", "--session", "s-one"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(
            "the agent (claude) could not produce a valid answer for session s-one (5 tries)"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("usage"), "{stderr}");
    assert!(!stderr.contains("total_cost"), "{stderr}");
}

#[test]
fn since_alone_reads_every_project_and_each_session_keeps_its_own() {
    let (sb, bin) = setup("", &squash());
    // A session of another project (another folder), on the same day.
    let elsewhere = tempfile::tempdir().unwrap();
    let dir = sb.home.path().join("sessions");
    let lines = [
        json!({"session": {"id": "s-else", "title": "t", "cwd": elsewhere.path(), "model": "m"}}),
        json!({"ts": "2026-11-21T10:00:00Z", "role": "user", "text": "We squash-merge here too."}),
        json!({"ts": "2026-11-21T10:00:01Z", "role": "assistant", "text": "ok"}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(dir.join("s-else.jsonl"), body).unwrap();
    sb.ambry().args(["sessions", "index"]).assert().success();
    let sent = |args: &[&str]| -> Vec<String> {
        let out = sb
            .ambry()
            .args(["--json", "memory", "distill"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut ids: Vec<String> = report["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["session_id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(
        sent(&["--since", "2026-11-01", "--dry-run"]),
        ["s-else", "s-one", "s-two"],
        "--since: sessions active from that day, of every project"
    );
    assert_eq!(
        sent(&["--since", "2026-11-01", "--project", "--dry-run"]),
        ["s-one", "s-two"],
        "--since with --project: this project's only"
    );
    assert_eq!(sent(&["--since", "2026-11-21", "--dry-run"]), ["s-else"]);
    sent(&["--since", "2026-11-21"]);
    assert!(stub_log(bin.path()).contains("We squash-merge here too."));
    // The other project's proposal belongs to that project, not to the folder it was run from.
    let pending: Value = serde_json::from_str(
        &fs::read_to_string(sb.home.path().join("distill/proposals.json")).unwrap(),
    )
    .unwrap();
    let text = pending.to_string();
    let root = elsewhere.path().canonicalize().unwrap();
    assert!(
        text.contains(&format!("\"root\":{}", json!(root))),
        "{text}"
    );
}

#[test]
fn an_accepted_proposal_names_the_sessions_own_source() {
    // The sessions are Ambry-native transcripts, distilled with (a stand-in for) Claude Code.
    let (sb, _bin) = setup("", &squash());
    let id = distilled_proposal(|| sb.ambry());
    sb.ambry()
        .args(["memory", "review", "accept", &id])
        .assert()
        .success();
    let saved = sb
        .ambry()
        .args(["memory", "get", "merge-style", "--scope", "project"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&saved.stdout);
    assert!(text.contains("ambry-session:s-one turns 1"), "{text}");
    assert!(!text.contains("claude-session:"), "{text}");
}
