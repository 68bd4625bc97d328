//! Team memory (DESIGN §15) through the real Claude Code and Codex clients: a teammate saves a team memory
//! in their clone and pushes it with git; this person's clone gets it; until they trust the
//! repository the model is only told that team memory waits, and after `ambry trust` the
//! memory itself reaches the model's request.

use std::path::Path;
use std::process::Command;

use super::codex::{developer_texts, TRUST};
use super::mock_api::Step;
use super::world::World;

const FACT: &str = "TEAM-FACT-5c1: deploys are frozen on Fridays after noon.";
const PROMPT: &str = "can we deploy the release on friday afternoon?";

fn git(dir: &Path, home: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Teammate",
            "-c",
            "user.email=teammate@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A teammate's clone saves a team memory and pushes it; `world.project()` becomes this
/// person's clone of the same repository.
fn clone_with_team_memory(world: &World) {
    let root = world.home().parent().unwrap().to_path_buf();
    let remote = root.join("remote.git");
    let teammate = root.join("teammate");
    std::fs::create_dir_all(&teammate).unwrap();
    git(
        &root,
        &root,
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    git(&teammate, &root, &["init", "-q", "-b", "main"]);
    git(
        &teammate,
        &root,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    // The teammate's own Ambry, on their machine.
    let saved = Command::new(assert_cmd::cargo::cargo_bin("ambry"))
        .args(["--home", root.join("teammate-home").to_str().unwrap()])
        .args(["--cwd", teammate.to_str().unwrap()])
        .args([
            "memory",
            "save",
            "deploy-freeze",
            "--scope",
            "team",
            "--type",
            "project",
        ])
        .args([
            "--description",
            "When the release may be deployed",
            "--body",
            FACT,
        ])
        .env("HOME", &root)
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .env_remove("AMBRY_HOME")
        .output()
        .unwrap();
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    git(&teammate, &root, &["add", ".ambry"]);
    git(
        &teammate,
        &root,
        &["commit", "-qm", "Team memory: the deploy freeze"],
    );
    git(&teammate, &root, &["push", "-q", "origin", "main"]);
    git(
        &root,
        &root,
        &[
            "clone",
            "-q",
            "-b",
            "main",
            remote.to_str().unwrap(),
            world.project().to_str().unwrap(),
        ],
    );
    assert!(world
        .project()
        .join(".ambry/memory/deploy-freeze.md")
        .is_file());
}

fn assert_waits_then_arrives(before: &str, after: &str) {
    assert!(!before.contains("TEAM-FACT-5c1"), "not given before trust");
    assert!(
        before.contains("1 team memory of this repository") && before.contains("ambry trust"),
        "the model is told team memory waits and how to trust it"
    );
    assert!(
        after.contains(FACT),
        "after trust the team memory reaches the model"
    );
    assert!(
        !after.contains("team memory of this repository"),
        "nothing waits any more"
    );
}

#[test]
fn a_team_memory_pulled_from_a_teammate_reaches_claude_code_only_after_trust() {
    let world = World::new();
    // Connected before the clone exists: connect inside a repository holding team memory
    // trusts it, which the second half checks.
    world
        .ambry(&["connect", "claude"])
        .ok("ambry connect claude");
    clone_with_team_memory(&world);
    world.api.script([Step::text("ok")]);
    world
        .claude_prompt(PROMPT, &[])
        .ok("claude -p before trust");
    let before = world.api.turns().remove(0).all_text();
    // Connecting again inside the repository is the person saying they work in it: trusted.
    let connected = world
        .ambry(&["connect", "claude"])
        .ok("ambry connect claude in the repository");
    assert!(
        connected.stdout.contains("trusted the team memory"),
        "{}",
        connected.stdout
    );
    world.api.clear();
    world.api.script([Step::text("ok")]);
    world.claude_prompt(PROMPT, &[]).ok("claude -p after trust");
    let after = world.api.turns().remove(0).all_text();
    assert_waits_then_arrives(&before, &after);
}

#[test]
fn a_team_memory_pulled_from_a_teammate_reaches_codex_only_after_trust() {
    let world = World::new();
    world.ambry(&["connect", "codex"]).ok("ambry connect codex");
    clone_with_team_memory(&world);
    world.api.script([Step::text("ok")]);
    world
        .codex_exec(PROMPT, &[TRUST])
        .ok("codex exec before trust");
    let before = developer_texts(&world.api.turns().remove(0)).join("\n");
    world.ambry(&["trust"]).ok("ambry trust");
    world.api.clear();
    world.api.script([Step::text("ok")]);
    world
        .codex_exec(PROMPT, &[TRUST])
        .ok("codex exec after trust");
    let after = developer_texts(&world.api.turns().remove(0)).join("\n");
    assert_waits_then_arrives(&before, &after);
}
