//! `ambry sessions …` and `ambry recall` on temp AMBRY_HOME, CLAUDE_CONFIG_DIR and CODEX_HOME.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use crate::support::Sandbox;

/// A sandbox plus Claude and Codex homes holding one transcript each.
struct Agents {
    sb: Sandbox,
    dirs: TempDir,
}

impl Agents {
    fn new() -> Agents {
        let agents = Agents {
            sb: Sandbox::new(),
            dirs: tempfile::tempdir().unwrap(),
        };
        let claude = agents
            .claude_project()
            .join("0a1b2c3d-1111-2222-3333-444455556666.jsonl");
        write(
            &claude,
            &[
                r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":false}"#,
                r#"{"type":"user","sessionId":"0a1b2c3d-1111-2222-3333-444455556666","cwd":"/home/dev/shop","timestamp":"2026-05-01T09:00:00.000Z","message":{"role":"user","content":"<system-reminder>injected</system-reminder>\nShould we drop the Redis cache in front of the catalog?"}}"#,
                r#"{"type":"assistant","sessionId":"0a1b2c3d-1111-2222-3333-444455556666","cwd":"/home/dev/shop","timestamp":"2026-05-01T09:00:05.000Z","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Yes: invalidation is racy and the materialized view is fast enough, so removing Redis is simpler."}]}}"#,
                r#"{"type":"progress","data":{"type":"hook_progress"},"timestamp":"2026-05-01T09:00:06.000Z"}"#,
            ],
        );
        let rollout = agents
            .codex_home()
            .join("sessions/2026/05/02/rollout-2026-05-02T10-00-00-abc.jsonl");
        write(
            &rollout,
            &[
                r#"{"timestamp":"2026-05-02T10:00:00.000Z","type":"session_meta","payload":{"id":"abc","cwd":"/home/dev/api","timestamp":"2026-05-02T10:00:00.000Z"}}"#,
                r#"{"timestamp":"2026-05-02T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/home/dev/api</cwd>\n</environment_context>"}]}}"#,
                r#"{"timestamp":"2026-05-02T10:00:00.000Z","type":"turn_context","payload":{"cwd":"/home/dev/api","model":"gpt-5-codex"}}"#,
                r#"{"timestamp":"2026-05-02T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Postgres runs out of connections during peaks"}]}}"#,
                r#"{"timestamp":"2026-05-02T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"Postgres runs out of connections during peaks"}}"#,
                r#"{"timestamp":"2026-05-02T10:00:03.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Put pgbouncer in transaction mode in front of Postgres."}]}}"#,
            ],
        );
        agents
    }
    fn claude_home(&self) -> PathBuf {
        self.dirs.path().join("claude")
    }
    fn claude_project(&self) -> PathBuf {
        self.claude_home().join("projects/-home-dev-shop")
    }
    fn codex_home(&self) -> PathBuf {
        self.dirs.path().join("codex")
    }
    fn ambry(&self) -> assert_cmd::Command {
        let mut cmd = self.sb.ambry();
        cmd.env("CLAUDE_CONFIG_DIR", self.claude_home())
            .env("CODEX_HOME", self.codex_home());
        cmd
    }
    /// `ambry args…` as a process to spawn and talk to while it runs.
    fn running(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("ambry"));
        cmd.env_remove("AMBRY_HOME")
            .env("HOME", self.sb.home.path())
            .env("CLAUDE_CONFIG_DIR", self.claude_home())
            .env("CODEX_HOME", self.codex_home())
            .arg("--home")
            .arg(self.sb.home.path())
            .args(args);
        cmd
    }
    fn json(&self, args: &[&str]) -> Value {
        let out = self.ambry().args(args).arg("--json").output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn write(path: &Path, lines: &[&str]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn index_json_summary_counts_files_messages_and_skipped_lines() {
    let a = Agents::new();
    let s = a.json(&["sessions", "index"]);
    assert_eq!(s["files"], 2);
    assert_eq!(s["sessions"], 2);
    assert_eq!(s["messages_indexed"], 4);
    assert_eq!(s["malformed_lines"], 0);
    assert_eq!(s["lines_skipped"]["progress"], 1);
    assert_eq!(s["lines_skipped"]["boilerplate"], 1);
    assert_eq!(s["lines_skipped"]["event_msg:user_message"], 1);
    assert!(s["seconds"].as_f64().unwrap() >= 0.0);
    let again = a.json(&["sessions", "index"]);
    assert_eq!(
        again["messages_indexed"], 0,
        "a second run reads nothing new"
    );
    let only = a.json(&["sessions", "index", "--source", "codex", "--rebuild"]);
    assert_eq!(only["files"], 1);
}

#[test]
fn recall_indexes_first_and_prints_the_contract_fields() {
    let a = Agents::new();
    let hits = a.json(&["recall", "when did we decide to drop the Redis cache?"]);
    let hits = hits.as_array().unwrap();
    assert!(!hits.is_empty());
    let top = hits[0].as_object().unwrap();
    for key in [
        "session_id",
        "source",
        "title",
        "cwd",
        "ts",
        "role",
        "snippet",
        "score",
        "path",
    ] {
        assert!(top.contains_key(key), "missing {key}: {top:?}");
    }
    assert_eq!(top["session_id"], "0a1b2c3d-1111-2222-3333-444455556666");
    assert_eq!(top["source"], "claude");
    assert_eq!(
        top["title"],
        "Should we drop the Redis cache in front of the catalog?"
    );
    assert_eq!(top["cwd"], "/home/dev/shop");
    assert!(
        top["snippet"].as_str().unwrap().contains("[Redis]"),
        "{top:?}"
    );
    assert!(Path::new(top["path"].as_str().unwrap()).exists());

    let human = a.ambry().args(["recall", "pgbouncer"]).output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(
        text.contains("[pgbouncer]") && text.contains("codex"),
        "{text}"
    );
    assert!(!text.contains("[some words]"), "a whole match: {text}");
    // A session that matched only some of a question's words says so beside its score.
    let question = "when did we decide to drop the Redis cache?";
    let widened = a.json(&["recall", question])[0]["widened"]
        .as_bool()
        .unwrap();
    let human = a.ambry().args(["recall", question]).output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert_eq!(first.ends_with("[some words]"), widened, "{text}");

    let filtered = a.json(&["recall", "Postgres OR Redis", "--source", "codex"]);
    assert!(filtered
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["source"] == "codex"));
    let scoped = a.json(&["recall", "Postgres OR Redis", "--project", "/home/dev/shop"]);
    assert!(!scoped.as_array().unwrap().is_empty());
    assert!(scoped
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["cwd"] == "/home/dev/shop"));
    let limited = a.json(&["recall", "Postgres OR Redis OR pgbouncer", "--limit", "1"]);
    assert_eq!(limited.as_array().unwrap().len(), 1);
}

#[test]
fn recall_survives_fts_syntax_errors_and_empty_homes() {
    let a = Agents::new();
    let hits = a.json(&["recall", "\"pgbouncer"]);
    assert_eq!(hits[0]["source"], "codex");
    let sb = Sandbox::new();
    let out = sb
        .ambry()
        .env("CLAUDE_CONFIG_DIR", sb.home.path().join("nope"))
        .args(["recall", "anything", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        serde_json::json!([])
    );
}

#[test]
fn list_and_show_read_sessions_back() {
    let a = Agents::new();
    a.ambry().args(["sessions", "index"]).assert().success();
    let list = a.json(&["sessions", "list"]);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["session_id"], "abc", "newest first");
    let t = a.json(&["sessions", "show", "abc"]);
    assert_eq!(t["meta"]["model"], "gpt-5-codex");
    let turns = t["turns"].as_array().unwrap();
    // Codex's environment block is shown as agent context, apart from what the person said.
    let said: Vec<&Value> = turns.iter().filter(|t| t["role"] != "context").collect();
    assert_eq!(said.len(), 2, "{turns:?}");
    assert_eq!(said[0]["role"], "user");
    assert!(
        turns
            .iter()
            .filter(|t| t["role"] == "context")
            .all(|t| t["label"].is_string()),
        "{turns:?}"
    );
    let out = a
        .ambry()
        .args(["sessions", "show", "missing", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"code\":\"session_not_found\""),
        "{stderr}"
    );
}

#[test]
fn a_corrupt_index_is_rebuilt_and_doctor_reports_health() {
    let a = Agents::new();
    fs::write(
        a.sb.home.path().join("index.sqlite"),
        "garbage, not sqlite".repeat(500),
    )
    .unwrap();
    let hits = a.json(&["recall", "pgbouncer"]);
    assert!(!hits.as_array().unwrap().is_empty());
    let doctor = a.json(&["doctor"]);
    let check = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["area"] == "session index")
        .unwrap()
        .clone();
    assert_eq!(check["status"], "ok");
    assert!(
        check["detail"].as_str().unwrap().contains("2 sessions"),
        "{check}"
    );
}

#[test]
fn a_switched_off_source_is_refused_with_the_config_key() {
    let a = Agents::new();
    fs::write(
        a.sb.home.path().join("config.toml"),
        "[sessions]\nsources = [\"claude\"]\n",
    )
    .unwrap();
    let out = a
        .ambry()
        .args(["sessions", "index", "--source", "codex"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("[sessions] sources"));
    let s = a.json(&["sessions", "index"]);
    assert_eq!(s["files"], 1);
}

#[test]
fn watch_prints_a_line_per_indexed_change() {
    let a = Agents::new();
    let mut child = a
        .running(&["--json", "sessions", "watch"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let wait_for = |pred: &dyn Fn(&Value) -> bool| -> bool {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
                if serde_json::from_str::<Value>(&line).is_ok_and(|v| pred(&v)) {
                    return true;
                }
            }
        }
        false
    };
    let caught_up = wait_for(&|v| v["kind"] == "indexed" && v["session_id"] == "abc");
    let native = a.sb.home.path().join("sessions/live.jsonl");
    write(
        &native,
        &[r#"{"ts":"2026-06-01T00:00:00Z","role":"user","text":"watching the quokka"}"#],
    );
    let saw_new =
        wait_for(&|v| v["kind"] == "indexed" && v["session_id"] == "live" && v["messages"] == 1);
    let _ = child.kill();
    let _ = child.wait();
    assert!(caught_up, "the catch-up run reported the existing rollout");
    assert!(saw_new, "a new transcript was reported");
    let hits = a.json(&["recall", "quokka", "--no-index"]);
    assert_eq!(hits[0]["session_id"], "live");
}

#[test]
fn a_deleted_transcript_stays_recallable_until_pruned() {
    let a = Agents::new();
    a.json(&["sessions", "index"]);
    let claude = a
        .claude_project()
        .join("0a1b2c3d-1111-2222-3333-444455556666.jsonl");
    fs::remove_file(&claude).unwrap();
    let s = a.json(&["sessions", "index"]);
    assert_eq!(s["files_removed"], 1);
    let hits = a.json(&["recall", "Redis cache catalog"]);
    assert_eq!(
        hits[0]["session_id"], "0a1b2c3d-1111-2222-3333-444455556666",
        "{hits}"
    );
    let shown = a.json(&["sessions", "show", "0a1b2c3d-1111-2222-3333-444455556666"]);
    assert!(shown.to_string().contains("materialized view"), "{shown}");
    let recent = a.json(&["sessions", "prune", "--source-removed", "--older-than", "1"]);
    assert_eq!(
        recent["removed"].as_array().unwrap().len(),
        0,
        "deleted moments ago: kept"
    );
    let dry = a.json(&["sessions", "prune", "--source-removed", "--dry-run"]);
    assert_eq!(dry["removed"].as_array().unwrap().len(), 1);
    let pruned = a.json(&["sessions", "prune", "--source-removed"]);
    assert_eq!(pruned["removed"][0]["path"], claude.display().to_string());
    let hits = a.json(&["recall", "Redis cache catalog"]);
    assert_eq!(hits.as_array().unwrap().len(), 0, "{hits}");
    a.ambry().args(["sessions", "prune"]).assert().code(2);
}

#[test]
fn a_rebuild_reads_every_transcript_again_and_keeps_the_vaulted_sessions() {
    let a = Agents::new();
    let first = a.json(&["sessions", "index"]);
    let claude = a
        .claude_project()
        .join("0a1b2c3d-1111-2222-3333-444455556666.jsonl");
    fs::remove_file(&claude).unwrap();
    a.json(&["sessions", "index"]);

    let rebuilt = a.json(&["sessions", "index", "--rebuild"]);
    assert_eq!(rebuilt["vault_kept"], 1, "{rebuilt}");
    assert_eq!(
        rebuilt["sessions"], first["sessions"],
        "the vaulted session is still counted: {rebuilt}"
    );
    assert_eq!(
        rebuilt["messages_indexed"], 2,
        "the Codex rollout was read again from the start: {rebuilt}"
    );
    let hits = a.json(&["recall", "Redis cache catalog", "--no-index"]);
    assert_eq!(
        hits[0]["session_id"], "0a1b2c3d-1111-2222-3333-444455556666",
        "{hits}"
    );
    assert!(
        hits[0]["source_removed_at"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "the hit is marked: {hits}"
    );
    let codex = a.json(&["recall", "pgbouncer", "--no-index"]);
    assert_eq!(
        codex.as_array().unwrap().len(),
        1,
        "read again once, not twice: {codex}"
    );
    assert!(codex[0]["source_removed_at"].is_null(), "{codex}");

    let shown = a.json(&["sessions", "show", "0a1b2c3d-1111-2222-3333-444455556666"]);
    assert!(shown["meta"]["source_removed_at"].is_string(), "{shown}");
    assert!(shown.to_string().contains("materialized view"), "{shown}");
    let text = a
        .ambry()
        .args(["sessions", "show", "0a1b2c3d-1111-2222-3333-444455556666"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("the transcript file was deleted"));

    // Rebuilding one source leaves the others' sessions alone.
    let only_codex = a.json(&["sessions", "index", "--rebuild", "--source", "codex"]);
    assert_eq!(only_codex["sessions"], first["sessions"], "{only_codex}");
    let after = a.json(&["recall", "Redis cache catalog", "--no-index"]);
    let after = after.as_array().unwrap();
    assert!(
        !after.is_empty()
            && after
                .iter()
                .all(|h| h["session_id"] == "0a1b2c3d-1111-2222-3333-444455556666"),
        "{after:?}"
    );
}

/// Two processes at once: `ambry sessions index` started while another indexer holds the
/// session index's writer lock says so on stderr, waits, and indexes once the lock is free; a
/// recall meanwhile answers at once from what is indexed and says why it did not index first.
#[test]
fn an_index_run_waits_for_another_indexer_and_a_recall_does_not() {
    let a = Agents::new();
    a.json(&["sessions", "index"]);
    let rollout = a
        .codex_home()
        .join("sessions/2026/05/02/rollout-2026-05-02T10-00-00-abc.jsonl");
    let mut text = fs::read_to_string(&rollout).unwrap();
    text.push_str(r#"{"timestamp":"2026-05-02T10:01:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"and what about the zeppelin replicas"}]}}"#);
    text.push('\n');
    fs::write(&rollout, text).unwrap();

    // What another indexer's run holds, as any process takes it.
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(a.sb.home.path().join("index.sqlite.writer"))
        .unwrap();
    lock.lock().unwrap();

    let recall = a
        .ambry()
        .args(["recall", "pgbouncer OR zeppelin"])
        .output()
        .unwrap();
    assert!(
        recall.status.success(),
        "{}",
        String::from_utf8_lossy(&recall.stderr)
    );
    let (out, err) = (
        String::from_utf8_lossy(&recall.stdout),
        String::from_utf8_lossy(&recall.stderr),
    );
    assert!(
        out.contains("[pgbouncer]") && !out.contains("zeppelin"),
        "what was indexed, nothing newer: {out}"
    );
    assert!(err.contains("another indexer is at work"), "{err}");

    let mut child = a
        .running(&["--json", "sessions", "index"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert!(first.contains("waiting for it to finish"), "{first}");
    assert!(
        child.try_wait().unwrap().is_none(),
        "still waiting while the lock is held"
    );
    drop(lock);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["messages_indexed"], 1, "{summary}");
    let after = a.json(&["recall", "zeppelin"]);
    assert_eq!(after.as_array().unwrap().len(), 1);
}
