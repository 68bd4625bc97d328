//! `ambry memory rename` and `ambry memory review` through the real binary: a rename's history,
//! links and retrieval cases follow it; the inbox lists findings and its actions write archived.

use std::fs;

use serde_json::Value;

use crate::support::Sandbox;

fn save(sb: &Sandbox, name: &str, description: &str, body: &str) {
    sb.ambry()
        .args([
            "memory",
            "save",
            name,
            "--type",
            "project",
            "--description",
            description,
        ])
        .args(["--scope", "user", "--body", body])
        .assert()
        .success();
}

fn json(sb: &Sandbox, args: &[&str]) -> Value {
    let out = sb.ambry().arg("--json").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn rename_moves_history_links_and_cases() {
    let sb = Sandbox::new();
    save(&sb, "deploy", "How we ship", "v1");
    save(&sb, "deploy", "How we ship", "v2");
    save(&sb, "notes", "Notes", "see [[deploy]]");
    let cases = sb.home.path().join("memory/tests.toml");
    fs::write(
        &cases,
        "# kept\n[[case]]\nprompt = \"ship\"\nexpect = [\"deploy\"]\n",
    )
    .unwrap();

    let renamed = json(&sb, &["memory", "rename", "deploy", "release-process"]);
    assert_eq!(renamed["memory"]["name"], "release-process");
    assert_eq!(renamed["versions_moved"], 2);

    let versions = json(&sb, &["memory", "archive", "list"]);
    let names: Vec<&str> = versions
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"deploy"), "{names:?}");
    assert_eq!(names.iter().filter(|n| **n == "release-process").count(), 2);
    let notes = json(&sb, &["memory", "get", "notes"]);
    assert_eq!(notes["body"], "see [[release-process]]\n");
    assert_eq!(
        fs::read_to_string(&cases).unwrap(),
        "# kept\n[[case]]\nprompt = \"ship\"\nexpect = [\"release-process\"]\n"
    );
    // Refused: the new name is taken; nothing changes.
    sb.ambry()
        .args(["memory", "rename", "notes", "release-process"])
        .assert()
        .failure();
}

#[test]
fn review_lists_findings_and_supersede_marks_the_list() {
    let sb = Sandbox::new();
    save(
        &sb,
        "install-a",
        "Installing dependencies",
        "Run pnpm install at the root before building.",
    );
    save(
        &sb,
        "install-b",
        "Installing dependencies",
        "Run npm install at the root before building.",
    );
    let inbox = json(&sb, &["memory", "review"]);
    let kinds: Vec<&str> = inbox
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["conflict"]);

    json(
        &sb,
        &[
            "memory",
            "review",
            "supersede",
            "install-b",
            "--by",
            "install-a",
        ],
    );
    let listed = json(&sb, &["memory", "list"]);
    let b = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "install-b")
        .unwrap();
    assert_eq!(b["retired"], "superseded by install-a");
    assert_eq!(
        b["superseded_by"], "install-a",
        "the row says by which: {b}"
    );
    assert_eq!(json(&sb, &["memory", "review"]), serde_json::json!([]));
    let versions = json(&sb, &["memory", "archive", "list", "install-b"]);
    assert_eq!(versions.as_array().unwrap().len(), 1);
}

#[test]
fn a_fetch_is_a_use_that_the_list_shows_and_search_marks_a_superseded_memory() {
    let sb = Sandbox::new();
    save(&sb, "ship-old", "How we ship", "make release");
    save(&sb, "ship-new", "How we ship now", "make release-v2");
    let uses = |name: &str| {
        let listed = json(&sb, &["memory", "list"]);
        let row = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap()
            .clone();
        (
            row["uses_30d"].as_u64().unwrap(),
            row["last_used"].is_string(),
        )
    };
    assert_eq!(uses("ship-new"), (0, false));
    json(&sb, &["memory", "get", "ship-new"]);
    json(&sb, &["memory", "get", "ship-new"]);
    assert_eq!(uses("ship-new"), (2, true));
    assert_eq!(uses("ship-old"), (0, false));

    json(
        &sb,
        &[
            "memory",
            "review",
            "supersede",
            "ship-old",
            "--by",
            "ship-new",
        ],
    );
    let hits = json(&sb, &["memory", "search", "ship", "--strategy", "bm25"]);
    let old = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "ship-old")
        .unwrap();
    assert_eq!(old["retired"], "superseded by ship-new");
    let new = hits
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "ship-new")
        .unwrap();
    assert!(new.get("retired").is_none(), "{new}");
}

/// A pair that reads alike but where one moved on is asked about in the text and in `--json`
/// (`same_subject`, with the claim), with both the merge and the supersede command shown.
#[test]
fn review_asks_duplicate_or_conflict_for_a_pair_that_reads_alike_but_moved_on() {
    let sb = Sandbox::new();
    save(
        &sb,
        "pkg-install",
        "How dependencies are installed",
        "Dependencies are installed with the workspace install at the repository root.",
    );
    save(
        &sb,
        "pkg-install-now",
        "How dependencies are installed now",
        "Dependencies are no longer installed per package; they are installed with the workspace install at the repository root.",
    );
    let inbox = json(&sb, &["memory", "review"]);
    assert_eq!(inbox[0]["kind"], "same_subject", "{inbox}");
    assert_eq!(inbox[0]["claims"][0][1], "no longer", "{inbox}");
    let out = sb.ambry().args(["memory", "review"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("duplicate or conflict?"), "{text}");
    assert!(
        text.contains("ambry memory review merge pkg-install pkg-install-now"),
        "{text}"
    );
    assert!(
        text.contains("ambry memory review supersede pkg-install --by pkg-install-now"),
        "{text}"
    );
}
