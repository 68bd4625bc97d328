//! `ambry memory review --ask claude|codex` with a stand-in agent (a script speaking Claude
//! Code's JSON result): the pairs marked "duplicate or conflict?" sent in one call after a dry
//! run that sends nothing, the verdict shown beside the pair (text and `--json`) and kept, so a
//! second ask sends nothing until a memory of the pair changes; no memory is ever changed; a
//! failing agent's reason said up front. The real clients are driven in `real_clients::review_ask`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::support::{answered, stub_agent, stub_calls, Sandbox};

const REASON: &str = "One says installs moved off the per-package way the other still describes.";

fn answering(verdict: &str) -> Value {
    answered(json!({"verdicts": [{"pair": 1, "verdict": verdict, "reason": REASON}]}))
}

fn save(sb: &Sandbox, name: &str, description: &str, body: &str) {
    sb.ambry()
        .args(["memory", "save", name, "--type", "project"])
        .args([
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

/// A sandbox whose review holds one "duplicate or conflict?" pair, with `script` as the agent.
fn setup(script: &Path) -> Sandbox {
    let sb = Sandbox::new();
    fs::write(
        sb.home.path().join("config.toml"),
        format!("[distill]\nclaude_command = \"{}\"\n", script.display()),
    )
    .unwrap();
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
    sb
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

fn same_subject(sb: &Sandbox) -> Value {
    let inbox = json_of(sb, &["memory", "review"]);
    inbox
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "same_subject")
        .cloned()
        .unwrap_or_else(|| panic!("a same_subject finding: {inbox}"))
}

/// Every memory file's bytes: an ask changes none.
fn memory_bytes(sb: &Sandbox) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(sb.home.path().join("memory"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_agent_judges_an_uncertain_pair_once_and_its_verdict_shows_beside_it() {
    let bin = tempfile::tempdir().unwrap();
    let sb = setup(&stub_agent(bin.path(), &answering("conflict"), 0));
    let before = memory_bytes(&sb);
    assert!(
        same_subject(&sb).get("agent").is_none(),
        "a verdict before any ask"
    );

    // The dry run: what would be sent and its size; nothing runs.
    let plan = json_of(&sb, &["memory", "review", "--ask", "claude", "--dry-run"]);
    assert_eq!(plan["pairs"].as_array().unwrap().len(), 1, "{plan}");
    let text = plan["prompt"].as_str().unwrap();
    assert!(text.contains("no longer installed per package"), "{text}");
    assert_eq!(plan["prompt_bytes"].as_u64().unwrap() as usize, text.len());
    let (ok, said, _) = run(&sb, &["memory", "review", "--ask", "claude", "--dry-run"]);
    assert!(ok);
    assert!(
        said.contains("dry run: 1 pair in one call to claude") && said.contains("nothing was sent"),
        "{said}"
    );
    assert_eq!(stub_calls(bin.path()), 0, "a dry run ran the agent");

    // The run: one call, as a distill child, and the verdict beside the pair.
    let (ok, said, stderr) = run(&sb, &["memory", "review", "--ask", "claude"]);
    assert!(ok, "{stderr}");
    assert_eq!(stub_calls(bin.path()), 1);
    let log = fs::read_to_string(bin.path().join("calls.log")).unwrap();
    assert!(log.contains("call AMBRY_DISTILL=1"), "{log}");
    assert!(log.contains("## Pair 1"), "{log}");
    assert!(
        said.contains(&format!("claude says: conflict — {REASON}")),
        "{said}"
    );
    assert!(
        said.contains("ambry memory review merge pkg-install pkg-install-now")
            && said.contains("ambry memory review supersede pkg-install --by pkg-install-now"),
        "the person still chooses: {said}"
    );
    let finding = same_subject(&sb);
    assert_eq!(finding["agent"]["verdict"], "conflict", "{finding}");
    assert_eq!(finding["agent"]["reason"], REASON);
    assert_eq!(finding["agent"]["agent"], "claude");
    assert_eq!(
        finding["claims"][0][1], "no longer",
        "the local evidence stays"
    );
    assert_eq!(memory_bytes(&sb), before, "an ask changed a memory");

    // Again: nothing is sent for the unchanged pair.
    let again = json_of(&sb, &["memory", "review", "--ask", "claude"]);
    assert_eq!(
        stub_calls(bin.path()),
        1,
        "the unchanged pair was sent again"
    );
    assert_eq!(again["cached"], 1);

    // A memory of the pair changes: its verdict is gone, and the next ask sends it again.
    save(
        &sb,
        "pkg-install-now",
        "How dependencies are installed now",
        "Dependencies are no longer installed per package; they are installed with the workspace install at the repository root, by CI too.",
    );
    assert!(
        same_subject(&sb).get("agent").is_none(),
        "a verdict on the old text is shown"
    );
    let asked = json_of(&sb, &["memory", "review", "--ask", "claude"]);
    assert_eq!(stub_calls(bin.path()), 2);
    assert_eq!(asked["pairs"].as_array().unwrap().len(), 1, "{asked}");
    assert_eq!(same_subject(&sb)["agent"]["verdict"], "conflict");
}

#[test]
fn a_failing_agent_says_why_up_front_and_keeps_nothing() {
    let bin = tempfile::tempdir().unwrap();
    let failure = json!({"type": "result", "subtype": "success", "is_error": true,
        "result": "Invalid API key · Please run /login", "usage": {"input_tokens": 0}});
    let sb = setup(&stub_agent(bin.path(), &failure, 1));
    let (ok, _, stderr) = run(&sb, &["memory", "review", "--ask", "claude"]);
    assert!(!ok, "a failed ask succeeded");
    assert!(
        stderr.contains("claude failed for the review's uncertain pairs")
            && stderr.contains("Invalid API key · Please run /login"),
        "{stderr}"
    );
    assert!(!stderr.contains("input_tokens"), "{stderr}");
    let (_, _, stderr) = run(&sb, &["--json", "memory", "review", "--ask", "claude"]);
    assert!(stderr.contains("agent_failed"), "{stderr}");
    assert!(
        !sb.home.path().join("distill/verdicts.json").exists(),
        "a failed ask kept a verdict"
    );
    assert!(same_subject(&sb).get("agent").is_none());

    let missing = Sandbox::new();
    fs::write(
        missing.home.path().join("config.toml"),
        "[distill]\ncodex_command = \"/nonexistent/codex\"\n",
    )
    .unwrap();
    save(
        &missing,
        "pkg-install",
        "How dependencies are installed",
        "Dependencies are installed with the workspace install at the repository root.",
    );
    save(
        &missing,
        "pkg-install-now",
        "How dependencies are installed now",
        "Dependencies are no longer installed per package; they are installed with the workspace install at the repository root.",
    );
    let (ok, _, stderr) = run(&missing, &["memory", "review", "--ask", "codex"]);
    assert!(!ok);
    assert!(
        stderr.contains("cannot start /nonexistent/codex") && stderr.contains("codex_command"),
        "{stderr}"
    );
}

#[test]
fn an_ask_with_nothing_uncertain_runs_no_agent() {
    let bin = tempfile::tempdir().unwrap();
    let script = stub_agent(bin.path(), &answering("duplicate"), 0);
    let sb = Sandbox::new();
    fs::write(
        sb.home.path().join("config.toml"),
        format!("[distill]\nclaude_command = \"{}\"\n", script.display()),
    )
    .unwrap();
    save(&sb, "alone", "A lone memory", "Nothing else reads like it.");
    let (ok, said, stderr) = run(&sb, &["memory", "review", "--ask", "claude"]);
    assert!(ok, "{stderr}");
    assert!(said.contains("no pair to ask claude about"), "{said}");
    assert_eq!(stub_calls(bin.path()), 0);
}
