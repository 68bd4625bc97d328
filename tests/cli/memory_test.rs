//! `ambry memory test`: the person's retrieval cases from memory/tests.toml, run through the
//! real binary; a failing case exits 1 and shows the ranks found.

use std::fs;

use serde_json::Value;

use crate::support::Sandbox;

fn seed(sb: &Sandbox) {
    fs::write(
        sb.home.path().join("config.toml"),
        "[retrieval]\nstrategy = \"bm25\"\n",
    )
    .unwrap();
    for (name, description, body) in [
        (
            "release-process",
            "How we ship a release",
            "Tag vX.Y.Z; CI builds and publishes the image.",
        ),
        (
            "commit-style",
            "Commit message conventions",
            "Imperative mood, 72 columns.",
        ),
    ] {
        sb.ambry()
            .args([
                "memory",
                "save",
                name,
                "--type",
                "project",
                "--description",
                description,
                "--scope",
                "user",
                "--body",
                body,
            ])
            .assert()
            .success();
    }
}

#[test]
fn passing_cases_exit_zero_and_a_failing_one_exits_one_with_its_ranks() {
    let sb = Sandbox::new();
    seed(&sb);
    let cases = sb.home.path().join("memory/tests.toml");
    fs::write(&cases, "[[case]]\nprompt = \"how do I ship a release?\"\nexpect = [\"release-process\"]\nwithin = 1\n").unwrap();
    let out = sb.ambry().args(["memory", "test"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed, 0 failed"));

    fs::write(
        &cases,
        "[[case]]\nprompt = \"how do I ship a release?\"\nexpect = [\"release-process\"]\n\n[[case]]\nprompt = \"how do I ship a release?\"\nexpect = [\"commit-style\"]\n",
    )
    .unwrap();
    let out = sb.ambry().args(["memory", "test"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("FAIL [user] \"how do I ship a release?\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("commit-style: not ranked, not injected"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 2 retrieval cases failed"));

    let out = sb
        .ambry()
        .args(["memory", "test", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["passed"], 1);
    assert_eq!(report["failed"], 1);
    assert_eq!(report["cases"][0]["expected"][0]["rank"], 1);
    assert_eq!(report["cases"][0]["expected"][0]["injected"], true);
    assert_eq!(report["cases"][1]["expected"][0]["rank"], Value::Null);
}

#[test]
fn a_broken_cases_file_is_a_clear_error() {
    let sb = Sandbox::new();
    seed(&sb);
    fs::write(
        sb.home.path().join("memory/tests.toml"),
        "[[case]]\nprompt = \"x\"\nexpect = \"not a list\"\n",
    )
    .unwrap();
    let out = sb
        .ambry()
        .args(["memory", "test", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("tests.toml") && stderr.contains("\"code\":\"invalid_cases\""),
        "{stderr}"
    );
}
