//! `ambry memory search` and `ambry compose` (also as a Claude Code hook) on a real temp home.

use std::fs;

use predicates::prelude::*;
use serde_json::Value;

use crate::support::Sandbox;

fn save(sb: &Sandbox, scope: &str, name: &str, kind: &str, description: &str, body: &str) {
    sb.ambry()
        .args([
            "memory",
            "save",
            name,
            "--type",
            kind,
            "--description",
            description,
            "--scope",
            scope,
            "--body",
            body,
        ])
        .assert()
        .success();
}

fn seed(sb: &Sandbox) {
    save(
        sb,
        "user",
        "test-style",
        "feedback",
        "No mocks for the database in integration tests",
        "Use a real Postgres container; mocks hid a migration bug.",
    );
    save(
        sb,
        "user",
        "commit-style",
        "user",
        "Commit message conventions",
        "Imperative mood, 72 columns, reference the ticket.",
    );
    save(
        sb,
        "project",
        "jwt-refresh-flow",
        "project",
        "How auth refresh interacts with the token cache",
        "Refresh tokens rotate on use; the cache key is the session id.",
    );
    save(
        sb,
        "project",
        "release-process",
        "project",
        "How this repo ships a release",
        "Tag vX.Y.Z, CI builds and publishes the image.",
    );
}

fn search(sb: &Sandbox, args: &[&str]) -> Vec<Value> {
    let out = sb
        .ambry()
        .args(["memory", "search", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn search_json_has_the_contract_shape_best_first() {
    let sb = Sandbox::new();
    seed(&sb);
    let hits = search(&sb, &["should I mock postgres in the integration specs?"]);
    assert_eq!(hits[0]["name"], "test-style");
    assert_eq!(hits[0]["score"], 1.0);
    let keys: Vec<&str> = hits[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 8, "{keys:?}");
    for key in [
        "scope",
        "name",
        "type",
        "description",
        "score",
        "path",
        "relevance",
        "gated",
    ] {
        assert!(keys.contains(&key), "{key}");
    }
    assert!(hits
        .windows(2)
        .all(|w| w[0]["score"].as_f64() >= w[1]["score"].as_f64()));
}

/// `memory search` shows the relevance gate's judgement, the one compose acts on: the memory a
/// prompt would be given reads as a good or strong match, a hit on one stray word as weak,
/// though both have a score.
#[test]
fn search_shows_the_gates_judgement_beside_each_hit() {
    let sb = Sandbox::new();
    seed(&sb);
    let query = "token refresh cache rotation commit";
    let hits = search(&sb, &[query, "--strategy", "bm25"]);
    assert!(hits.len() >= 2, "{hits:?}");
    assert_eq!(hits[0]["name"], "jwt-refresh-flow");
    assert_eq!(hits[0]["gated"], true);
    assert!(
        ["strong", "good"].contains(&hits[0]["relevance"].as_str().unwrap()),
        "{hits:?}"
    );
    let stray = hits
        .iter()
        .find(|h| h["name"] == "commit-style")
        .expect("commit-style matches one word");
    assert_eq!(stray["gated"], false, "{stray}");
    assert_eq!(stray["relevance"], "weak", "{stray}");
    // The composer agrees: the gated memory is given, the weak one is not.
    let out = sb
        .ambry()
        .args(["compose", "--json", "--query", query])
        .output()
        .unwrap();
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    let selected: Vec<&str> = c["selected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(selected.contains(&"jwt-refresh-flow"), "{selected:?}");
    assert!(!selected.contains(&"commit-style"), "{selected:?}");
    // The text form says the same in a column.
    sb.ambry()
        .args(["memory", "search", query, "--strategy", "bm25"])
        .assert()
        .success()
        .stdout(
            predicate::str::is_match(r"(?m)^1\.000  (strong|good) +project +jwt-refresh-flow")
                .unwrap()
                .and(
                    predicate::str::is_match(r"(?m)^\d\.\d{3}  weak +user +commit-style").unwrap(),
                ),
        );
}

#[test]
fn search_flags_filter_limit_and_pick_the_strategy() {
    let sb = Sandbox::new();
    seed(&sb);
    let all = search(&sb, &["release token commit database"]);
    assert!(all.len() >= 3);
    assert_eq!(
        search(&sb, &["release token commit database", "--limit", "1"]).len(),
        1
    );
    let user_only = search(&sb, &["release token commit database", "--scope", "user"]);
    assert!(user_only.iter().all(|h| h["scope"] == "user"));
    // Synonyms are a bm25 feature: `deploy` finds the release memory; keyword needs the exact word.
    assert_eq!(
        search(&sb, &["how do we deploy?", "--strategy", "bm25"])[0]["name"],
        "release-process"
    );
    assert!(search(&sb, &["how do we deploy?", "--strategy", "keyword"]).is_empty());
}

#[test]
fn auto_without_a_model_says_why_it_used_bm25() {
    let sb = Sandbox::new();
    seed(&sb);
    sb.ambry()
        .args(["memory", "search", "release"])
        .assert()
        .success()
        .stderr(predicate::str::contains("using bm25 because"));
}

#[test]
fn compose_prints_the_block_and_json_reports_sizes_and_cuts() {
    let sb = Sandbox::new();
    seed(&sb);
    fs::write(sb.home.path().join("USER.md"), "Prefer small commits.\n").unwrap();
    sb.ambry()
        .args(["compose", "--query", "the token refresh cache is broken"])
        .assert()
        .success()
        .stdout(
            predicate::str::starts_with(
                "<ambry-memory>\n## User preferences\nPrefer small commits.",
            )
            .and(predicate::str::contains(
                "### jwt-refresh-flow [project]\nRefresh tokens rotate",
            ))
            .and(predicate::str::ends_with("</ambry-memory>\n")),
        );
    let out = sb
        .ambry()
        .args([
            "compose",
            "--json",
            "--query",
            "token refresh database release",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!v["selected"].as_array().unwrap().is_empty(), "{v}");
    let selected = &v["selected"][0];
    for key in ["scope", "name", "type", "score", "bytes", "content_hash"] {
        assert!(selected.get(key).is_some(), "{key}");
    }
    assert!(v["cut"].as_array().unwrap().iter().all(|c| [
        "below_gate",
        "already_in_context",
        "budget"
    ]
    .contains(&c["reason"].as_str().unwrap())));
    assert!(!v["cut"].as_array().unwrap().is_empty());
    assert_eq!(v["moment"], "new_context");
    assert_eq!(v["budgets"]["hard_limit"], 8000);
    assert!(v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["bytes"].as_u64().unwrap() > 0));
    assert_eq!(
        v["bytes"].as_u64().unwrap() as usize,
        v["text"].as_str().unwrap().len()
    );
}

#[test]
fn the_claude_hook_reads_a_real_payload_and_uses_its_cwd() {
    let sb = Sandbox::new();
    seed(&sb);
    let elsewhere = tempfile::tempdir().unwrap();
    let payload = serde_json::json!({
        "session_id": "0b5f3c1e-7a2d-4c1b-9d3e-2f6a8b9c0d1e",
        "transcript_path": "/home/u/.claude/projects/x/0b5f3c1e.jsonl",
        "cwd": sb.cwd.path(),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "the token refresh cache is broken again"
    });
    // Run from another directory: the payload's cwd decides the project.
    let mut cmd = assert_cmd::Command::cargo_bin("ambry").unwrap();
    // Not through `sb.ambry()`, so its settings are repeated: no service started for a
    // temporary home (it would outlive the test).
    cmd.env_remove("AMBRY_HOME")
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .current_dir(elsewhere.path())
        .arg("--home")
        .arg(sb.home.path());
    cmd.args(["compose", "--hook", "claude"])
        .write_stdin(payload.to_string())
        .assert()
        .success()
        .stdout(predicate::str::contains("### jwt-refresh-flow [project]"));
}

#[test]
fn a_bad_hook_payload_never_breaks_the_turn() {
    let sb = Sandbox::new();
    seed(&sb);
    for payload in ["", "not json", "{\"prompt\": 42}"] {
        sb.ambry()
            .args(["compose", "--hook", "claude"])
            .write_stdin(payload)
            .assert()
            .code(0)
            .stdout("")
            .stderr(predicate::str::contains("memory not injected"));
    }
}

#[test]
fn compose_survives_a_corrupt_index_database() {
    let sb = Sandbox::new();
    seed(&sb);
    fs::write(sb.home.path().join("index.sqlite"), b"garbage, not sqlite").unwrap();
    sb.ambry()
        .args(["compose", "--query", "release"])
        .assert()
        .success()
        .stdout(predicate::str::contains("### release-process"));
}

fn hook(sb: &Sandbox, agent: &str, payload: serde_json::Value) -> String {
    let out = sb
        .ambry()
        .args(["compose", "--hook", agent])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_session_gets_the_map_once_each_body_once_per_context_and_compaction_brings_it_back() {
    let sb = Sandbox::new();
    seed(&sb);
    fs::write(sb.home.path().join("USER.md"), "Prefer small commits.\n").unwrap();
    let event = |name: &str, extra: serde_json::Value| {
        let mut p = serde_json::json!({
            "session_id": "sess-1",
            "cwd": sb.cwd.path(),
            "hook_event_name": name,
        });
        p.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        p
    };
    let start = hook(
        &sb,
        "claude",
        event("SessionStart", serde_json::json!({"source": "startup"})),
    );
    assert!(
        start.contains("## User preferences") && start.contains("## Memory map"),
        "{start}"
    );
    assert!(
        start.contains("memory_search") && !start.contains("Refresh tokens rotate"),
        "{start}"
    );
    let prompt = serde_json::json!({"prompt": "the token refresh cache is broken"});
    let first = hook(&sb, "claude", event("UserPromptSubmit", prompt.clone()));
    assert!(first.contains("### jwt-refresh-flow [project]"), "{first}");
    assert!(
        !first.contains("User preferences"),
        "anchors once per context: {first}"
    );
    let again = hook(&sb, "claude", event("UserPromptSubmit", prompt.clone()));
    assert_eq!(again, "", "the context holds it already");
    // What `--session` previews for that session: nothing new, each decision explained.
    let out = sb
        .ambry()
        .args([
            "compose",
            "--json",
            "--query",
            "the token refresh cache is broken",
            "--session",
            "sess-1",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["moment"], "turn");
    assert!(
        v["cut"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "jwt-refresh-flow" && c["reason"] == "already_in_context"),
        "{v}"
    );
    // A compaction empties the context: the memory comes back.
    let pre = hook(
        &sb,
        "claude",
        event("PreCompact", serde_json::json!({"trigger": "auto"})),
    );
    assert_eq!(pre, "");
    let codex = hook(&sb, "codex", event("UserPromptSubmit", prompt));
    let v: Value = serde_json::from_str(&codex).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    assert!(v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("### jwt-refresh-flow"));
    let ledger = sb.home.path().join("ledger.sqlite");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(&ledger).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // The ledger is data: a rebuilt session index leaves it alone.
    sb.ambry()
        .args(["sessions", "index", "--rebuild"])
        .assert()
        .success();
    assert_eq!(
        hook(
            &sb,
            "claude",
            event(
                "UserPromptSubmit",
                serde_json::json!({"prompt": "the token refresh cache is broken"})
            )
        ),
        ""
    );
}
