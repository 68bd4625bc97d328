//! `ambry memory distill --annotate` with a stand-in agent (a script speaking Claude Code's JSON
//! result): the memories without `when` sent in one call after a dry run that sends nothing,
//! each answer listed by `memory review` (text and `--json`) as a proposal carrying only its
//! phrases, never a second one while it waits; accepted, the memory's file gains exactly the
//! phrases; a memory changed meanwhile refuses the accept. The real clients are driven in
//! `real_clients::annotate`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::{answered, stub_agent, stub_calls, Sandbox};

/// A stand-in for `claude -p` answering `when` phrases for both memories.
fn agent(dir: &Path) -> PathBuf {
    let answer = json!({"annotations": [
        {"memory": "user/db-pool", "when": ["bumping the DB pool size", "too many connections error"]},
        {"memory": "user/release-day", "when": ["when do we release", "planning the release"]},
    ]});
    stub_agent(dir, &answered(answer), 0)
}

fn save(sb: &Sandbox, name: &str, body: &str, more: &[&str]) {
    sb.ambry()
        .args([
            "memory", "save", name, "--type", "project", "--scope", "user",
        ])
        .args(["--description", &format!("About {name}"), "--body", body])
        .args(more)
        .assert()
        .success();
}

fn run(sb: &Sandbox, args: &[&str]) -> (bool, String, String) {
    let out = sb.ambry().args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_of(sb: &Sandbox, args: &[&str]) -> Value {
    let (ok, stdout, stderr) = run(sb, &[&["--json"], args].concat());
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

fn proposals(sb: &Sandbox) -> Vec<Value> {
    json_of(sb, &["memory", "review"])
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "proposal")
        .cloned()
        .collect()
}

fn memory_file(sb: &Sandbox, name: &str) -> String {
    fs::read_to_string(sb.home.path().join(format!("memory/{name}.md"))).unwrap()
}

#[test]
fn the_agent_proposes_when_phrases_and_an_accept_writes_exactly_them() {
    let bin = tempfile::tempdir().unwrap();
    let sb = Sandbox::new();
    fs::write(
        sb.home.path().join("config.toml"),
        format!(
            "[distill]\nclaude_command = \"{}\"\n",
            agent(bin.path()).display()
        ),
    )
    .unwrap();
    save(
        &sb,
        "db-pool",
        "The pool holds at most 20 connections.",
        &[],
    );
    save(&sb, "release-day", "We release on Thursdays.", &[]);
    save(
        &sb,
        "rate-limit",
        "Payments allow 10 requests a second.",
        &["--when", "a 429 from payments"],
    );
    let before = memory_file(&sb, "db-pool");

    // The dry run: what would be sent and its size; nothing runs.
    let plan = json_of(&sb, &["memory", "distill", "--annotate", "--dry-run"]);
    assert_eq!(
        plan["memories"],
        json!(["user/db-pool", "user/release-day"])
    );
    let text = plan["prompt"].as_str().unwrap();
    assert!(text.contains("at most 20 connections"), "{text}");
    assert!(!text.contains("10 requests a second"), "{text}");
    let (ok, said, _) = run(&sb, &["memory", "distill", "--annotate", "--dry-run"]);
    assert!(ok);
    assert!(
        said.contains("dry run: 2 memories in one call to claude")
            && said.contains("nothing was sent"),
        "{said}"
    );
    assert_eq!(stub_calls(bin.path()), 0, "a dry run ran the agent");

    // The run: one call, as a distill child; a proposal per memory, listed by the review.
    let (ok, said, stderr) = run(&sb, &["memory", "distill", "--annotate"]);
    assert!(ok, "{stderr}");
    assert_eq!(stub_calls(bin.path()), 1);
    let log = fs::read_to_string(bin.path().join("calls.log")).unwrap();
    assert!(log.contains("call AMBRY_DISTILL=1"), "{log}");
    assert!(log.contains("## user/release-day"), "{log}");
    assert!(
        said.contains("2 proposal(s) for review")
            && said.contains("user/db-pool when: \"bumping the DB pool size\""),
        "{said}"
    );
    let listed = proposals(&sb);
    assert_eq!(listed.len(), 2, "{listed:?}");
    let db = listed.iter().find(|p| p["name"] == "db-pool").unwrap();
    assert_eq!(db["action"], "when");
    assert_eq!(db["target"], "db-pool");
    assert_eq!(
        db["when"],
        json!(["bumping the DB pool size", "too many connections error"])
    );
    let (_, review, _) = run(&sb, &["memory", "review"]);
    assert!(
        review.contains("say when user/db-pool is needed (claude): \"bumping the DB pool size\", \"too many connections error\""),
        "{review}"
    );
    assert_eq!(memory_file(&sb, "db-pool"), before, "a run wrote a memory");

    // Waiting in the review, they are not sent again.
    let (ok, said, _) = run(&sb, &["memory", "distill", "--annotate"]);
    assert!(ok);
    assert_eq!(
        stub_calls(bin.path()),
        1,
        "sent again while its proposal waits"
    );
    assert!(
        said.contains("phrases already wait in the review"),
        "{said}"
    );

    // Accepted: exactly the phrases, the rest of the file as it was.
    let id = db["id"].as_str().unwrap();
    let (ok, _, stderr) = run(&sb, &["memory", "review", "accept", id]);
    assert!(ok, "{stderr}");
    let after = memory_file(&sb, "db-pool");
    assert!(
        after.contains("when: [bumping the DB pool size, too many connections error]\n"),
        "{after}"
    );
    let unstamped = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("updated:") && !l.starts_with("when:"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(unstamped(&after), unstamped(&before));

    // A memory changed since its phrases were proposed: the accept is refused, reject drops it.
    save(&sb, "release-day", "We release on Tuesdays now.", &[]);
    let release = listed.iter().find(|p| p["name"] == "release-day").unwrap();
    let id = release["id"].as_str().unwrap();
    let (ok, _, stderr) = run(&sb, &["memory", "review", "accept", id]);
    assert!(!ok, "a stale proposal was accepted");
    assert!(stderr.contains("changed since"), "{stderr}");
    assert!(!memory_file(&sb, "release-day").contains("when:"));
    let (ok, _, stderr) = run(&sb, &["memory", "review", "reject", id]);
    assert!(ok, "{stderr}");
    assert!(proposals(&sb).is_empty());
}
