//! `ambry import claude`: Claude Code's topic files brought into Ambry's scopes, on temporary
//! homes with real git repositories.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::Sandbox;

fn ambry(sb: &Sandbox) -> assert_cmd::Command {
    let mut cmd = sb.ambry();
    cmd.env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env("AMBRY_NO_SERVICE", "1");
    cmd
}

/// `ambry --json` run for `repo` (the sandbox's own `--cwd` would be the wrong project).
fn in_repo(sb: &Sandbox, repo: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("ambry").unwrap();
    cmd.env_remove("AMBRY_HOME")
        .env("HOME", sb.home.path())
        .arg("--home")
        .arg(sb.home.path())
        .arg("--cwd")
        .arg(repo)
        .arg("--json");
    cmd
}

fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn import_claude_brings_topic_files_into_the_repository_project() {
    let sb = Sandbox::new();
    let home = sb.home.path();
    let repo = home.join("code/my_app");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    git(
        &repo,
        &["remote", "add", "origin", "git@github.com:acme/my_app.git"],
    );
    let dashed: String = repo
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mem = home.join(".claude/projects").join(&dashed).join("memory");
    fs::create_dir_all(&mem).unwrap();
    let testing = "---\nname: feedback_testing\ndescription: Run the integration tests against a real database\ntype: feedback\n---\nNever mock the database in integration tests.\n\n**Why:** a mocked migration hid a broken one.\n";
    fs::write(mem.join("feedback_testing.md"), testing).unwrap();
    fs::write(mem.join("project_release.md"), "---\nname: project_release\ndescription: Release freeze dates\ntype: project\n---\nFreeze starts 2026-12-01.\n").unwrap();
    fs::write(mem.join("MEMORY.md"), "- [Testing](feedback_testing.md)\n").unwrap();
    let gone = home.join(".claude/projects/-nowhere-at-all/memory");
    fs::create_dir_all(&gone).unwrap();
    fs::write(
        gone.join("x.md"),
        "---\nname: x\ndescription: d\ntype: user\n---\nb\n",
    )
    .unwrap();
    let before: Vec<(String, Vec<u8>)> = ["feedback_testing.md", "project_release.md", "MEMORY.md"]
        .iter()
        .map(|f| (f.to_string(), fs::read(mem.join(f)).unwrap()))
        .collect();

    let out = ambry(&sb)
        .args(["--json", "import", "claude", "--dry-run"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dry: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(dry["items"].as_array().unwrap().len(), 2);
    assert!(!home.join("projects").exists(), "a dry run writes nothing");

    let out = ambry(&sb)
        .args(["--json", "import", "claude"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcomes: Vec<(String, String)> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["name"].as_str().unwrap().to_string(),
                i["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("feedback-testing".to_string(), "created".to_string()),
            ("project-release".into(), "created".into())
        ]
    );
    assert_eq!(
        report["unresolved"][0]["dir"],
        home.join(".claude/projects/-nowhere-at-all")
            .display()
            .to_string()
    );
    let slug = report["items"][0]["project"].as_str().unwrap().to_string();
    assert!(slug.starts_with("my-app-"), "{slug}");

    let listed = in_repo(&sb, &repo)
        .args(["memory", "list", "--scope", "project"])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["feedback-testing", "project-release"]);
    let got = in_repo(&sb, &repo)
        .args(["memory", "get", "feedback-testing", "--scope", "project"])
        .output()
        .unwrap();
    let got: Value = serde_json::from_slice(&got.stdout).unwrap();
    assert_eq!(got["type"], "feedback");
    assert_eq!(got["body"], "Never mock the database in integration tests.\n\n**Why:** a mocked migration hid a broken one.\n");
    let file = fs::read_to_string(
        home.join("projects")
            .join(&slug)
            .join("memory/feedback-testing.md"),
    )
    .unwrap();
    assert!(
        file.contains(&format!(
            "source: {}",
            mem.join("feedback_testing.md").display()
        )),
        "{file}"
    );

    let again: Value = serde_json::from_slice(
        &ambry(&sb)
            .args(["--json", "import", "claude"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        again["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["outcome"] == "unchanged"),
        "{again}"
    );

    fs::write(
        mem.join("feedback_testing.md"),
        testing.replace("Never mock", "Do not mock"),
    )
    .unwrap();
    let edited: Value = serde_json::from_slice(
        &ambry(&sb)
            .args(["--json", "import", "claude"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(edited["items"][0]["outcome"], "updated");
    assert_eq!(edited["items"][1]["outcome"], "unchanged");
    let versions = fs::read_dir(home.join("projects").join(&slug).join("memory/.archive"))
        .unwrap()
        .count();
    assert_eq!(versions, 1, "one archived version");

    for (name, bytes) in before.iter().skip(1) {
        assert_eq!(
            &fs::read(mem.join(name)).unwrap(),
            bytes,
            "{name} is never written"
        );
    }
}
