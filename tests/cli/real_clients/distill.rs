//! `ambry memory distill` with the real `claude` and `codex` CLIs as the person's own agent,
//! against the model API mock scripted with the proposal JSON: what the model receives (the
//! transcript and the existing memories, no Ambry hook block), proposals in the review inbox,
//! accept writing the memory with its `source`, reject leaving the store byte-identical, the
//! person's session lists untouched, a dry run calling nothing, a malformed or oversized answer
//! refused with nothing written, and an unchanged session never sent twice.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use super::journey::{self, DEPLOY_FACT};
use super::mock_api::Step;
use super::world::World;

const SESSION: &str = "sess-release-42";
/// Said only in the transcript: the model can have it only from what distill sent.
const TRANSCRIPT_FACT: &str = "release train leaves on Thursdays at 14:00 UTC";

/// An Ambry-native transcript of a session in the world's project, indexed.
fn seed_session(world: &World) {
    let dir = world.store().join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let cwd = world.project().canonicalize().unwrap();
    let lines = [
        json!({"session": {"id": SESSION, "title": "Release planning", "cwd": cwd, "model": "m"}}),
        json!({"ts": "2026-11-20T10:00:00Z", "role": "user", "text": format!("Remember: our {TRANSCRIPT_FACT}; never release on Fridays.")}),
        json!({"ts": "2026-11-20T10:00:05Z", "role": "assistant", "text": "Understood, Thursdays at 14:00 UTC, never Fridays."}),
        json!({"ts": "2026-11-20T10:01:00Z", "role": "user", "text": "Also I like short commit messages."}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(format!("{SESSION}.jsonl")), text).unwrap();
    world
        .ambry(&["sessions", "index", "--source", "ambry"])
        .ok("index the session");
}

/// Points distill at the pinned clients (the world's PATH does not hold them).
pub(super) fn configure(world: &World) {
    let config = format!(
        "[distill]\nclaude_command = \"{}\"\ncodex_command = \"{}\"\n",
        world.client_bin("claude").display(),
        world.client_bin("codex").display()
    );
    std::fs::create_dir_all(world.store()).unwrap();
    std::fs::write(world.store().join("config.toml"), config).unwrap();
}

fn answer() -> Value {
    json!({"proposals": [
        {"action": "new", "scope": "project", "name": "release-schedule", "type": "project",
         "description": "When this team releases", "body": format!("The {TRANSCRIPT_FACT}. Never on Fridays."),
         "target": null, "source_turns": [1, 2], "reason": "the person stated it", "enforce": null,
         "when": ["planning a release", "can we ship this on friday"]},
        {"action": "new", "scope": "user", "name": "commit-style", "type": "feedback",
         "description": "Commit message preference", "body": "Short commit messages.",
         "target": null, "source_turns": [3], "reason": "the person's preference",
         "enforce": {"tool": ["Bash"], "match": "\\bgit commit\\b", "action": "remind"},
         "when": []}
    ]})
}

/// Every file under `dir` with its bytes (absent dir: empty).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// The memory files of both scopes (what accept and reject may or may not touch).
fn store_bytes(world: &World) -> BTreeMap<String, Vec<u8>> {
    let mut all = snapshot(&world.store().join("memory"));
    for (k, v) in snapshot(&world.store().join("projects")) {
        all.insert(format!("projects/{k}"), v);
    }
    all
}

/// The guard rails of a run of the person's agent, as the model saw it (`call`): no Ambry hook
/// fired and no Ambry tool was offered in it, and it left nothing in the person's session list
/// (`sessions_dir`, `before` the run).
pub(super) fn assert_guarded(
    call: &super::mock_api::Recorded,
    sessions_dir: &Path,
    before: &[String],
) {
    assert!(
        !call.all_text().contains("<ambry-memory>"),
        "an Ambry hook fired in the child run"
    );
    assert!(
        !call.tool_names().iter().any(|t| t.contains("ambry")),
        "an Ambry tool in the child run: {:?}",
        call.tool_names()
    );
    assert_eq!(
        transcripts_in(sessions_dir),
        before,
        "the child run left a session in the person's list ({})",
        sessions_dir.display()
    );
}

/// Every file and folder under `dir`: a child that left even an empty folder there shows.
pub(super) fn transcripts_in(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
            if p.is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

fn proposals(world: &World) -> Vec<Value> {
    let out = world
        .ambry(&["--json", "memory", "review"])
        .ok("memory review --json");
    let findings: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    findings
        .into_iter()
        .filter(|f| f["kind"] == "proposal")
        .collect()
}

fn id_of(proposals: &[Value], name: &str) -> String {
    proposals
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("a proposal named {name}: {proposals:?}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The whole journey with one client: dry run, run, review, accept, reject, run again.
fn journey(world: World, agent: &str, reply: Step) {
    configure(&world);
    journey::seed_deploy_memory(&world);
    seed_session(&world);
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

    // Dry run: counts, calls nothing.
    let dry = world
        .ambry(&[
            "--json",
            "memory",
            "distill",
            "--with",
            agent,
            "--project",
            "--dry-run",
        ])
        .ok("distill --dry-run");
    let dry: Value = serde_json::from_str(&dry.stdout).unwrap();
    assert_eq!(dry["calls"].as_array().unwrap().len(), 1, "{dry}");
    assert!(dry["estimated_tokens"].as_u64().unwrap() > 100, "{dry}");
    assert!(world.api.requests().is_empty(), "a dry run sends nothing");
    assert!(proposals(&world).is_empty());

    // The run.
    world.api.script([reply]);
    let run = world
        .ambry(&["--json", "memory", "distill", "--with", agent, "--project"])
        .ok("distill");
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["proposals"].as_array().unwrap().len(), 2, "{report}");
    let turns = world.api.turns();
    assert_eq!(turns.len(), 1, "one call for one short session");
    let sent = turns[0].all_text();
    assert!(
        sent.contains(TRANSCRIPT_FACT),
        "the transcript reached the model"
    );
    assert!(
        sent.contains(DEPLOY_FACT) && sent.contains("deploy-process"),
        "the existing memories reached the model"
    );
    assert_guarded(&turns[0], &sessions_dir, &person_sessions);

    // The review inbox shows both, with their source turns.
    let pending = proposals(&world);
    assert_eq!(pending.len(), 2, "{pending:?}");
    let release = pending
        .iter()
        .find(|p| p["name"] == "release-schedule")
        .unwrap();
    assert_eq!(release["session_id"], SESSION);
    assert_eq!(release["source_turns"][0]["turn"], 1);
    assert!(release["source_turns"][0]["excerpt"]
        .as_str()
        .unwrap()
        .contains("Thursdays"));
    // What the memory is for travels through the agent's schema too (DESIGN §5).
    assert_eq!(
        release["when"],
        json!(["planning a release", "can we ship this on friday"])
    );
    // A rule distilled with the memory travels through the agent's schema, off until turned on.
    let style = pending
        .iter()
        .find(|p| p["name"] == "commit-style")
        .unwrap();
    assert_eq!(style["enforce"]["status"], "proposed", "{style}");

    // Reject: the store is byte-identical.
    let before = store_bytes(&world);
    world
        .ambry(&[
            "memory",
            "review",
            "reject",
            &id_of(&pending, "commit-style"),
        ])
        .ok("reject");
    assert_eq!(store_bytes(&world), before, "reject touched no memory");

    // Accept: an ordinary save with `source:` naming the session.
    world
        .ambry(&[
            "memory",
            "review",
            "accept",
            &id_of(&pending, "release-schedule"),
        ])
        .ok("accept");
    let got = world
        .ambry(&[
            "--json",
            "memory",
            "get",
            "release-schedule",
            "--scope",
            "project",
        ])
        .ok("memory get");
    let memory: Value = serde_json::from_str(&got.stdout).unwrap();
    let path = memory["path"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_default();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| got.stdout.clone());
    let source = text
        .lines()
        .find(|l| l.starts_with("source:"))
        .unwrap_or_else(|| panic!("a source key: {text}"));
    // The session is an Ambry-native transcript, whichever agent distilled it.
    assert!(
        source.contains(&format!("ambry-session:{SESSION} turns 1,2")),
        "{text}"
    );
    assert!(proposals(&world).is_empty(), "both decided");

    // Again: the unchanged session is not sent twice.
    world.api.clear();
    let again = world
        .ambry(&["--json", "memory", "distill", "--with", agent, "--project"])
        .ok("distill again");
    let again: Value = serde_json::from_str(&again.stdout).unwrap();
    assert!(world.api.requests().is_empty(), "nothing re-sent");
    assert_eq!(again["unchanged"], json!([SESSION]));
}

#[test]
fn claude_code_distills_a_session_into_reviewed_proposals() {
    let world = World::new();
    let reply = Step::Tool {
        name: "StructuredOutput".into(),
        namespace: None,
        input: answer(),
    };
    journey(world, "claude", reply);
}

#[test]
fn codex_distills_a_session_into_reviewed_proposals() {
    let world = World::new();
    journey(world, "codex", Step::Text(answer().to_string()));
}

/// A bad answer: a clear error with its code, no proposal, no memory, and the session is not
/// marked distilled (a later run tries it again).
fn refused(reply: Step, code: &str) {
    let world = World::new();
    configure(&world);
    journey::seed_deploy_memory(&world);
    seed_session(&world);
    let before = store_bytes(&world);
    world.api.script([reply]);
    let out = world.ambry(&[
        "--json",
        "memory",
        "distill",
        "--with",
        "codex",
        "--project",
    ]);
    assert!(!out.status.success(), "a bad answer fails the run");
    assert!(out.stderr.contains(code), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was written"), "{}", out.stderr);
    assert_eq!(world.api.turns().len(), 1);
    assert!(proposals(&world).is_empty());
    assert_eq!(store_bytes(&world), before);
    world.api.clear();
    world
        .ambry(&[
            "--json",
            "memory",
            "distill",
            "--with",
            "codex",
            "--project",
            "--dry-run",
        ])
        .ok("dry run after the failure");
    let plan = world
        .ambry(&[
            "--json",
            "memory",
            "distill",
            "--with",
            "codex",
            "--project",
            "--dry-run",
        ])
        .ok("dry run");
    let plan: Value = serde_json::from_str(&plan.stdout).unwrap();
    assert_eq!(
        plan["calls"].as_array().unwrap().len(),
        1,
        "still to be sent"
    );
}

#[test]
fn a_malformed_answer_is_a_clear_error_and_writes_nothing() {
    refused(
        Step::text("Here are some memories you might like: release on Thursdays."),
        "malformed_answer",
    );
}

#[test]
fn an_oversized_answer_is_a_clear_error_and_writes_nothing() {
    let mut big = answer();
    big["proposals"][0]["body"] = json!("x".repeat(70 * 1024));
    refused(Step::Text(big.to_string()), "answer_too_large");
}
