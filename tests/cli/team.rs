//! Team memory (DESIGN §15) through the real binary: saved with `--scope team` into the
//! repository, listed, trusted and revoked, and said by `doctor`.

use serde_json::Value;

use crate::support::Sandbox;

fn git_init(dir: &std::path::Path) {
    let ok = std::process::Command::new("git")
        .args(["init", "-q"])
        .arg(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

#[test]
fn team_memory_is_saved_in_the_repository_listed_and_trusted_by_the_person() {
    let sb = Sandbox::new();
    git_init(sb.cwd.path());
    sb.ambry()
        .args([
            "memory",
            "save",
            "release-train",
            "--scope",
            "team",
            "--type",
            "project",
        ])
        .args([
            "--description",
            "When releases leave",
            "--body",
            "Every other Tuesday.",
        ])
        .assert()
        .success();
    assert!(sb
        .cwd
        .path()
        .join(".ambry/memory/release-train.md")
        .is_file());
    let listed = sb
        .ambry()
        .args(["--json", "memory", "list", "--scope", "team"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let listed: Value = serde_json::from_slice(&listed).unwrap();
    assert_eq!(listed[0]["scope"], "team", "{listed}");
    assert_eq!(listed[0]["name"], "release-train");

    let doctor = String::from_utf8(sb.ambry().arg("doctor").output().unwrap().stdout).unwrap();
    assert!(
        doctor.contains("team memory") && doctor.contains("not trusted"),
        "{doctor}"
    );
    let status: Value = serde_json::from_slice(
        &sb.ambry()
            .args(["--json", "trust", "--status"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(
        (status["trusted"].as_bool(), status["memories"].as_u64()),
        (Some(false), Some(1))
    );
    sb.ambry().arg("trust").assert().success();
    let doctor = String::from_utf8(sb.ambry().arg("doctor").output().unwrap().stdout).unwrap();
    assert!(doctor.contains("(trusted: given to agents)"), "{doctor}");
    let status: Value = serde_json::from_slice(
        &sb.ambry()
            .args(["--json", "trust", "--revoke"])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(status["trusted"], false);
}
