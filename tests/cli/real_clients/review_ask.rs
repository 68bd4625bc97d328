//! `ambry memory review --ask` with the real `claude` and `codex` CLIs as the person's own
//! judge, against the model API mock scripted with the verdicts: a dry run sends nothing; the
//! one call carries both memories of the "duplicate or conflict?" pair with the secret in them
//! masked, and no Ambry hook block or tool; the verdict and its reason show beside the pair and
//! are kept, so a second ask sends nothing; no memory changes and no session of the person's is
//! left behind.

use serde_json::{json, Value};

use super::distill::{assert_guarded, configure, transcripts_in};
use super::mock_api::Step;
use super::world::World;

/// Only in the memories: the model can have it only from what the ask sent (masked).
const SECRET: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
const REASON: &str = "One says installs moved off the per-package way the other still describes.";

/// Two user memories the local judge asks about ("same subject — duplicate or conflict?"),
/// written as files (a secret in a file written by hand is masked before anything is sent).
fn seed_pair(world: &World) {
    let dir = world.store().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let memory = |name: &str, description: &str, body: &str| {
        let text = format!(
            "---\nname: {name}\ntype: project\ndescription: {description}\n---\n{body} Registry token {SECRET}.\n"
        );
        std::fs::write(dir.join(format!("{name}.md")), text).unwrap();
    };
    memory(
        "pkg-install",
        "How dependencies are installed",
        "Dependencies are installed with the workspace install at the repository root.",
    );
    memory(
        "pkg-install-now",
        "How dependencies are installed now",
        "Dependencies are no longer installed per package; they are installed with the workspace install at the repository root.",
    );
}

fn answer() -> Value {
    json!({"verdicts": [{"pair": 1, "verdict": "conflict", "reason": REASON}]})
}

fn same_subject(world: &World) -> Value {
    let out = world
        .ambry(&["--json", "memory", "review"])
        .ok("memory review --json");
    let inbox: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    inbox
        .into_iter()
        .find(|f| f["kind"] == "same_subject")
        .unwrap_or_else(|| panic!("a same_subject finding: {}", out.stdout))
}

fn memory_files(world: &World) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(world.store().join("memory"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn journey(agent: &str, reply: Step) {
    let world = World::new();
    configure(&world);
    seed_pair(&world);
    // Connected, so a hook or Ambry's MCP server would fire in the child if it were not off.
    match agent {
        "claude" => world.ambry(&["connect", "claude"]).ok("connect claude"),
        _ => world
            .ambry(&["connect", "codex", "--trust"])
            .ok("connect codex --trust"),
    };
    let sessions_dir = match agent {
        "claude" => world.claude_dir().join("projects"),
        _ => world.codex_dir().join("sessions"),
    };
    let person_sessions = transcripts_in(&sessions_dir);
    let before = memory_files(&world);
    assert!(same_subject(&world).get("agent").is_none());

    // The dry run: what would be sent, masked, and its size; nothing reaches the model.
    let dry = world
        .ambry(&["--json", "memory", "review", "--ask", agent, "--dry-run"])
        .ok("review --ask --dry-run");
    let dry: Value = serde_json::from_str(&dry.stdout).unwrap();
    assert_eq!(dry["pairs"].as_array().unwrap().len(), 1, "{dry}");
    assert!(!dry["prompt"].as_str().unwrap().contains("ghp_"), "{dry}");
    assert!(world.api.requests().is_empty(), "a dry run sent something");

    // The run: one call with the pair, its verdict shown beside it.
    world.api.script([reply]);
    let run = world
        .ambry(&["memory", "review", "--ask", agent])
        .ok("review --ask");
    assert!(
        run.stdout
            .contains(&format!("{agent} says: conflict — {REASON}")),
        "{}",
        run.stdout
    );
    let turns = world.api.turns();
    assert_eq!(turns.len(), 1, "one call for the pair");
    let sent = turns[0].all_text();
    for text in [
        "Dependencies are installed with the workspace install",
        "no longer installed per package",
        "pkg-install-now",
    ] {
        assert!(sent.contains(text), "the model did not get {text:?}");
    }
    assert!(!sent.contains(SECRET), "a secret reached the model");
    assert!(
        sent.contains("[secret masked: "),
        "the secret is not masked"
    );
    assert_guarded(&turns[0], &sessions_dir, &person_sessions);
    let finding = same_subject(&world);
    assert_eq!(finding["agent"]["verdict"], "conflict", "{finding}");
    assert_eq!(finding["agent"]["agent"], agent);
    assert_eq!(finding["agent"]["reason"], REASON);
    assert!(world.store().join("distill/verdicts.json").is_file());
    assert_eq!(memory_files(&world), before, "an ask changed a memory");

    // Kept: asked again, nothing is sent.
    world.api.clear();
    let again = world
        .ambry(&["--json", "memory", "review", "--ask", agent])
        .ok("review --ask again");
    let again: Value = serde_json::from_str(&again.stdout).unwrap();
    assert!(
        world.api.requests().is_empty(),
        "the unchanged pair was sent again"
    );
    assert_eq!(again["cached"], 1, "{again}");
}

#[test]
fn claude_code_judges_an_uncertain_pair_and_its_verdict_is_kept() {
    journey(
        "claude",
        Step::Tool {
            name: "StructuredOutput".into(),
            namespace: None,
            input: answer(),
        },
    );
}

#[test]
fn codex_judges_an_uncertain_pair_and_its_verdict_is_kept() {
    journey("codex", Step::Text(answer().to_string()));
}
