//! `ambry memory list|get|save|forget` and `ambry init` against a real temp home.

use std::fs;

use predicates::prelude::*;
use serde_json::Value;

use crate::support::Sandbox;

fn save(sb: &Sandbox, name: &str, scope: &str, body: &str) {
    sb.ambry()
        .args([
            "memory",
            "save",
            name,
            "--type",
            "project",
            "--description",
            &format!("about {name}"),
            "--scope",
            scope,
            "--body",
            body,
        ])
        .assert()
        .success();
}

fn list_json(sb: &Sandbox) -> Vec<Value> {
    let out = sb
        .ambry()
        .args(["memory", "list", "--json"])
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
fn save_then_list_json_has_the_contract_fields() {
    let sb = Sandbox::new();
    save(
        &sb,
        "jwt-refresh-flow",
        "user",
        "Refresh tokens rotate on use.",
    );
    let rows = list_json(&sb);
    assert_eq!(rows.len(), 1);
    let row = rows[0].as_object().unwrap();
    for key in [
        "scope",
        "name",
        "type",
        "description",
        "created",
        "updated",
        "path",
    ] {
        assert!(row.contains_key(key), "missing {key} in {row:?}");
    }
    assert!(
        !row.contains_key("error"),
        "error only for unparseable files"
    );
    assert_eq!(row["scope"], "user");
    assert_eq!(row["type"], "project");
    let path = row["path"].as_str().unwrap();
    assert!(fs::read_to_string(path)
        .unwrap()
        .contains("Refresh tokens rotate on use."));
    assert!(row["created"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn global_flags_work_before_and_after_the_subcommand() {
    let sb = Sandbox::new();
    save(&sb, "a-note", "user", "x");
    let mut cmd = assert_cmd::Command::cargo_bin("ambry").unwrap();
    cmd.env_remove("AMBRY_HOME")
        .args(["--json", "memory", "list", "--home"])
        .arg(sb.home.path())
        .args(["--cwd"])
        .arg(sb.cwd.path());
    let out = cmd.output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["name"], "a-note");
}

#[test]
fn ambry_home_env_is_honoured_when_no_flag_is_given() {
    let sb = Sandbox::new();
    let mut cmd = assert_cmd::Command::cargo_bin("ambry").unwrap();
    cmd.env("AMBRY_HOME", sb.home.path())
        .current_dir(sb.cwd.path())
        .args([
            "memory",
            "save",
            "env-note",
            "--type",
            "user",
            "--description",
            "d",
            "--body",
            "b",
        ])
        .assert()
        .success();
    assert!(sb.home.path().join("memory/env-note.md").is_file());
}

#[test]
fn overwrite_archives_the_prior_version_and_keeps_created() {
    let sb = Sandbox::new();
    save(&sb, "deploy-steps", "user", "first");
    // That `created` survives an overwrite at a later time is tested in core with an injected
    // clock (tests/workspace.rs); here, the file-level behaviour through the real binary.
    let created_before = list_json(&sb)[0]["created"].clone();
    save(&sb, "deploy-steps", "user", "second");
    let rows = list_json(&sb);
    assert_eq!(rows[0]["created"], created_before);
    assert_ne!(rows[0]["updated"], Value::Null);
    let archive = sb.home.path().join("memory/.archive");
    let archived: Vec<_> = fs::read_dir(&archive)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(archived.len(), 1);
    assert!(fs::read_to_string(&archived[0]).unwrap().contains("first"));
    assert!(
        fs::read_to_string(sb.home.path().join("memory/deploy-steps.md"))
            .unwrap()
            .contains("second")
    );
}

#[test]
fn saving_identical_content_changes_nothing() {
    let sb = Sandbox::new();
    save(&sb, "same", "user", "body");
    save(&sb, "same", "user", "body");
    assert!(!sb.home.path().join("memory/.archive").exists());
}

#[test]
fn body_comes_from_stdin_or_file() {
    let sb = Sandbox::new();
    sb.ambry()
        .args([
            "memory",
            "save",
            "from-stdin",
            "--type",
            "reference",
            "--description",
            "d",
        ])
        .write_stdin("piped body\n")
        .assert()
        .success();
    let file = sb.cwd.path().join("body.md");
    fs::write(&file, "file body\n").unwrap();
    sb.ambry()
        .args([
            "memory",
            "save",
            "from-file",
            "--type",
            "reference",
            "--description",
            "d",
            "--body-file",
        ])
        .arg(&file)
        .assert()
        .success();
    sb.ambry()
        .args(["memory", "get", "from-stdin"])
        .assert()
        .success()
        .stdout(predicate::str::contains("piped body"));
    sb.ambry()
        .args(["memory", "get", "from-file"])
        .assert()
        .success()
        .stdout(predicate::str::contains("file body"));
}

#[test]
fn project_scope_shadows_user_scope_in_get() {
    let sb = Sandbox::new();
    save(&sb, "build-cmd", "user", "user body");
    save(&sb, "build-cmd", "project", "project body");
    sb.ambry()
        .args(["memory", "get", "build-cmd"])
        .assert()
        .success()
        .stdout(predicate::str::contains("project body"));
    sb.ambry()
        .args(["memory", "get", "build-cmd", "--scope", "user"])
        .assert()
        .success()
        .stdout(predicate::str::contains("user body"));
    let rows = list_json(&sb);
    assert_eq!(rows.len(), 2);
    let project_toml = fs::read_dir(sb.home.path().join("projects"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("project.toml");
    let record = fs::read_to_string(project_toml).unwrap();
    assert!(
        record.contains(&sb.cwd.path().canonicalize().unwrap().display().to_string()),
        "{record}"
    );
}

#[test]
fn forget_archives_and_removes_file_and_sidecar() {
    let sb = Sandbox::new();
    save(&sb, "old-idea", "user", "x");
    let dir = sb.home.path().join("memory");
    fs::write(dir.join("old-idea.vec"), b"vec").unwrap();
    sb.ambry()
        .args(["memory", "forget", "old-idea", "--scope", "user"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "ambry memory archive restore old-idea",
        ));
    assert!(!dir.join("old-idea.md").exists());
    assert!(!dir.join("old-idea.vec").exists());
    assert_eq!(fs::read_dir(dir.join(".archive")).unwrap().count(), 1);
    assert!(!fs::read_to_string(dir.join("MEMORY.md"))
        .unwrap()
        .contains("old-idea"));
    sb.ambry()
        .args(["memory", "forget", "old-idea", "--scope", "user"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no memory named `old-idea`"));
}

#[test]
fn forget_requires_a_scope() {
    let sb = Sandbox::new();
    sb.ambry().args(["memory", "forget", "x"]).assert().code(2);
}

#[test]
fn invalid_input_is_refused_with_a_clear_error_and_exit_1() {
    let sb = Sandbox::new();
    let cases: [(&[&str], &str); 5] = [
        (
            &[
                "memory",
                "save",
                "../evil",
                "--type",
                "x",
                "--description",
                "d",
                "--body",
                "b",
            ],
            "invalid name",
        ),
        (
            &[
                "memory",
                "save",
                "memory",
                "--type",
                "x",
                "--description",
                "d",
                "--body",
                "b",
            ],
            "reserved",
        ),
        (
            &[
                "memory",
                "save",
                "ok-name",
                "--type",
                "!!",
                "--description",
                "d",
                "--body",
                "b",
            ],
            "invalid type",
        ),
        (
            &[
                "memory",
                "save",
                "ok-name",
                "--type",
                "x",
                "--description",
                " ",
                "--body",
                "b",
            ],
            "description",
        ),
        (
            &[
                "memory",
                "save",
                "ok-name",
                "--type",
                "x",
                "--description",
                "d",
                "--body",
                "key: ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R",
            ],
            "GitHub token",
        ),
    ];
    for (args, expected) in cases {
        sb.ambry()
            .args(args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(expected));
    }
    assert!(!sb.home.path().join("memory/ok-name.md").exists());
    assert!(!sb.home.path().join("evil.md").exists());
}

#[test]
fn json_errors_carry_a_stable_code() {
    let sb = Sandbox::new();
    let out = sb
        .ambry()
        .args([
            "--json",
            "memory",
            "save",
            "memory",
            "--type",
            "x",
            "--description",
            "d",
            "--body",
            "b",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json_line = stderr
        .lines()
        .find(|l| l.starts_with('{'))
        .expect("a JSON error line");
    let v: Value = serde_json::from_str(json_line).unwrap();
    assert_eq!(v["code"], "invalid_name");
}

#[test]
fn an_unparseable_file_is_listed_with_its_error_and_never_overwritten() {
    let sb = Sandbox::new();
    save(&sb, "good", "user", "x");
    let broken = sb.home.path().join("memory/broken.md");
    fs::write(&broken, "no frontmatter here\n").unwrap();
    let rows = list_json(&sb);
    let row = rows
        .iter()
        .find(|r| r["name"] == "broken")
        .expect("broken file listed");
    assert!(row["error"].as_str().unwrap().contains("frontmatter"));
    sb.ambry()
        .args([
            "memory",
            "save",
            "broken",
            "--type",
            "x",
            "--description",
            "d",
            "--body",
            "new",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("does not parse"));
    assert_eq!(
        fs::read_to_string(&broken).unwrap(),
        "no frontmatter here\n"
    );
}

#[test]
fn unknown_frontmatter_keys_survive_a_save_through_the_cli() {
    let sb = Sandbox::new();
    save(&sb, "keeps-keys", "user", "v1");
    let path = sb.home.path().join("memory/keeps-keys.md");
    let text =
        fs::read_to_string(&path)
            .unwrap()
            .replacen("---\n", "---\nreviewed_by: ana   # lead\n", 1);
    fs::write(&path, text).unwrap();
    save(&sb, "keeps-keys", "user", "v2");
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains("reviewed_by: ana   # lead"), "{text}");
    assert!(text.contains("v2"));
}

#[test]
fn init_creates_anchors_and_never_overwrites() {
    let sb = Sandbox::new();
    sb.ambry()
        .args(["init", "user"])
        .assert()
        .success()
        .stdout(predicate::str::contains("created"));
    fs::write(sb.home.path().join("USER.md"), "my prefs").unwrap();
    sb.ambry()
        .args(["init", "user"])
        .assert()
        .success()
        .stdout(predicate::str::contains("already exists"));
    assert_eq!(
        fs::read_to_string(sb.home.path().join("USER.md")).unwrap(),
        "my prefs"
    );
    sb.ambry().args(["init", "project"]).assert().success();
    assert!(sb.cwd.path().join(".ambry/AMBRY.md").is_file());
}

#[test]
fn a_symlinked_memory_file_is_never_written_through() {
    let sb = Sandbox::new();
    save(&sb, "target", "user", "x");
    let outside = sb.cwd.path().join("outside.md");
    fs::write(&outside, "precious").unwrap();
    std::os::unix::fs::symlink(&outside, sb.home.path().join("memory/linked.md")).unwrap();
    sb.ambry()
        .args([
            "memory",
            "save",
            "linked",
            "--type",
            "x",
            "--description",
            "d",
            "--body",
            "overwrite",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("symbolic link"));
    assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
}
