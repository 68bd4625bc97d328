//! `ambry doctor` reports the state of the home, config, scopes and projects.

use std::fs;

use predicates::prelude::*;
use serde_json::Value;

use crate::support::Sandbox;

#[test]
fn healthy_home_reports_counts_and_exits_zero() {
    let sb = Sandbox::new();
    sb.ambry()
        .args([
            "memory",
            "save",
            "a-note",
            "--type",
            "user",
            "--description",
            "d",
            "--body",
            "b",
        ])
        .assert()
        .success();
    let out = sb.ambry().args(["doctor", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let checks = v["checks"].as_array().unwrap();
    assert!(checks
        .iter()
        .any(|c| c["area"] == "user memory"
            && c["detail"].as_str().unwrap().starts_with("1 memories")));
    assert!(checks.iter().all(|c| c["status"] != "error"));
}

#[test]
fn broken_config_fails_and_says_where() {
    let sb = Sandbox::new();
    fs::write(
        sb.home.path().join("config.toml"),
        "[retrieval]\ntop_k = \"ten\"\n",
    )
    .unwrap();
    sb.ambry()
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL").and(predicate::str::contains("line 2")));
}

#[test]
fn unparseable_files_are_flagged() {
    let sb = Sandbox::new();
    fs::create_dir_all(sb.home.path().join("memory")).unwrap();
    fs::write(sb.home.path().join("memory/broken.md"), "no frontmatter").unwrap();
    sb.ambry()
        .arg("doctor")
        .assert()
        .success()
        .stdout(predicate::str::contains("do not parse").and(predicate::str::contains("broken")));
}
