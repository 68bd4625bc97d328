//! `ambry memory archive list|restore|prune` on a real temp home.

use std::fs;

use predicates::prelude::*;
use serde_json::Value;

use crate::support::Sandbox;

fn save(sb: &Sandbox, name: &str, body: &str) {
    sb.ambry()
        .args([
            "memory",
            "save",
            name,
            "--type",
            "project",
            "--description",
            "d",
            "--body",
            body,
        ])
        .assert()
        .success();
}

fn versions(sb: &Sandbox, name: Option<&str>) -> Vec<Value> {
    let mut cmd = sb.ambry();
    cmd.args(["memory", "archive", "list", "--json"]);
    if let Some(n) = name {
        cmd.arg(n);
    }
    let out = cmd.output().unwrap();
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
fn every_overwrite_is_listed_newest_first_and_restorable() {
    let sb = Sandbox::new();
    for body in ["v1", "v2", "v3"] {
        save(&sb, "notes", body);
    }
    save(&sb, "other", "x");
    let listed = versions(&sb, Some("notes"));
    assert_eq!(listed.len(), 2, "v1 and v2 archived, v3 current");
    assert!(listed[0]["version"].as_str().unwrap() > listed[1]["version"].as_str().unwrap());
    let oldest = listed[1]["version"].as_str().unwrap().to_string();
    assert!(fs::read_to_string(listed[1]["path"].as_str().unwrap())
        .unwrap()
        .contains("v1"));

    sb.ambry()
        .args(["memory", "archive", "restore", "notes", &oldest])
        .assert()
        .success();
    let current = fs::read_to_string(sb.home.path().join("memory/notes.md")).unwrap();
    assert!(current.contains("v1"), "{current}");
    let after = versions(&sb, Some("notes"));
    assert_eq!(after.len(), 3, "restore archived v3 first");
    assert!(fs::read_to_string(after[0]["path"].as_str().unwrap())
        .unwrap()
        .contains("v3"));
}

#[test]
fn a_forgotten_memory_comes_back() {
    let sb = Sandbox::new();
    save(&sb, "gone", "precious");
    let out = sb
        .ambry()
        .args(["--json", "memory", "forget", "gone", "--scope", "user"])
        .output()
        .unwrap();
    let forgot: Value = serde_json::from_slice(&out.stdout).unwrap();
    let version = forgot["version"].as_str().unwrap();
    sb.ambry()
        .args([
            "memory", "archive", "restore", "gone", version, "--scope", "user",
        ])
        .assert()
        .success();
    assert!(fs::read_to_string(sb.home.path().join("memory/gone.md"))
        .unwrap()
        .contains("precious"));
    assert!(fs::read_to_string(sb.home.path().join("memory/MEMORY.md"))
        .unwrap()
        .contains("[gone](gone.md)"));
}

#[test]
fn restoring_an_unknown_version_is_a_clear_error() {
    let sb = Sandbox::new();
    save(&sb, "x-note", "a");
    for bad in ["123.abc", "../../etc", "nope"] {
        sb.ambry()
            .args(["memory", "archive", "restore", "x-note", bad])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("no archived version"));
    }
}

#[test]
fn prune_dry_run_lists_exactly_what_prune_removes() {
    let sb = Sandbox::new();
    for i in 0..5 {
        save(&sb, "busy", &format!("v{i}"));
    }
    save(&sb, "calm", "a");
    save(&sb, "calm", "b");
    let before = versions(&sb, None);
    assert_eq!(before.len(), 5);

    let out = sb
        .ambry()
        .args([
            "--json",
            "memory",
            "archive",
            "prune",
            "--keep",
            "2",
            "--dry-run",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let preview: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut would: Vec<String> = preview["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(would.len(), 2, "busy has 4 archived, keep 2");
    assert_eq!(versions(&sb, None).len(), 5, "dry run removes nothing");

    let out = sb
        .ambry()
        .args(["--json", "memory", "archive", "prune", "--keep", "2"])
        .output()
        .unwrap();
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut removed: Vec<String> = done["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_str().unwrap().to_string())
        .collect();
    would.sort();
    removed.sort();
    assert_eq!(would, removed);
    let left = versions(&sb, None);
    assert_eq!(left.len(), 3);
    let newest_busy: Vec<&Value> = before
        .iter()
        .filter(|v| v["name"] == "busy")
        .take(2)
        .collect();
    for v in newest_busy {
        assert!(
            left.iter().any(|l| l["version"] == v["version"]),
            "the newest versions stay"
        );
    }
}

#[test]
fn prune_uses_the_config_policy_and_refuses_keep_zero() {
    let sb = Sandbox::new();
    for i in 0..4 {
        save(&sb, "cfg", &format!("v{i}"));
    }
    fs::write(
        sb.home.path().join("config.toml"),
        "[archive]\nkeep_versions = 1\n",
    )
    .unwrap();
    sb.ambry()
        .args(["memory", "archive", "prune"])
        .assert()
        .success()
        .stdout(predicate::str::contains("removed 2"));
    assert_eq!(versions(&sb, None).len(), 1);
    sb.ambry()
        .args(["memory", "archive", "prune", "--keep", "0"])
        .assert()
        .code(1);
}

#[test]
fn a_bad_config_names_key_and_line() {
    let sb = Sandbox::new();
    fs::write(
        sb.home.path().join("config.toml"),
        "[archive]\nkeep_versions = 3\nkeep_forever = true\n",
    )
    .unwrap();
    sb.ambry()
        .args(["memory", "archive", "prune", "--dry-run"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("line 3").and(predicate::str::contains("keep_forever")));
}
