//! `ambry memory distill --annotate` with the real `claude` and `codex` CLIs as the person's own
//! agent, against the model API mock scripted with the phrases: a dry run sends nothing; the one
//! call carries the memories without `when` (a secret in them masked), none that says when it is
//! needed, and no Ambry hook block or tool; each answer is listed by `memory review` as a
//! proposal; accepted, the memory's file has the phrases and the same body; no session of the
//! person's is left behind.

use serde_json::{json, Value};

use super::distill::{assert_guarded, configure, transcripts_in};
use super::mock_api::Step;
use super::world::World;

/// Only in a memory: the model can have it only from what the run sent (masked).
const SECRET: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
const BODY: &str = "The connection pool holds at most 20 connections per worker.";

/// Two user memories without `when` (a secret in one, as a file written by hand can hold; a
/// write refuses such a file, so it is not the one accepted below) and
/// one that says when it is needed.
fn seed(world: &World) {
    let dir = world.store().join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    let memory = |name: &str, description: &str, extra: &str, body: &str| {
        let text = format!(
            "---\nname: {name}\ntype: project\ndescription: {description}\n{extra}---\n{body}\n"
        );
        std::fs::write(dir.join(format!("{name}.md")), text).unwrap();
    };
    memory(
        "db-pool",
        "Connection pool sizing",
        "source: claude-import\n",
        BODY,
    );
    memory(
        "release-day",
        "When releases go out",
        "",
        &format!("Releases go out on Thursdays after the freeze. Registry token {SECRET}."),
    );
    memory(
        "rate-limit",
        "Payments rate limit",
        "when: [a 429 from payments]\n",
        "Payments allow ten requests a second.",
    );
}

fn answer() -> Value {
    json!({"annotations": [
        {"memory": "user/db-pool", "when": ["bumping the DB pool size", "too many connections error"]},
        {"memory": "user/release-day", "when": ["when do we release", "planning the release"]},
    ]})
}

fn proposals(world: &World) -> Vec<Value> {
    let out = world
        .ambry(&["--json", "memory", "review"])
        .ok("memory review --json");
    let inbox: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    inbox
        .into_iter()
        .filter(|f| f["kind"] == "proposal")
        .collect()
}

fn journey(agent: &str, reply: Step) {
    let world = World::new();
    configure(&world);
    seed(&world);
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
    let db_pool = world.store().join("memory/db-pool.md");
    let before = std::fs::read_to_string(&db_pool).unwrap();

    // The dry run: what would be sent, masked, and its size; nothing reaches the model.
    let dry = world
        .ambry(&[
            "--json",
            "memory",
            "distill",
            "--annotate",
            "--with",
            agent,
            "--dry-run",
        ])
        .ok("distill --annotate --dry-run");
    let dry: Value = serde_json::from_str(&dry.stdout).unwrap();
    assert_eq!(
        dry["memories"],
        json!(["user/db-pool", "user/release-day"]),
        "{dry}"
    );
    assert!(!dry["prompt"].as_str().unwrap().contains("ghp_"), "{dry}");
    assert!(world.api.requests().is_empty(), "a dry run sent something");

    // The run: one call with both memories, each answer a proposal in the review.
    world.api.script([reply]);
    world
        .ambry(&["memory", "distill", "--annotate", "--with", agent])
        .ok("distill --annotate");
    let turns = world.api.turns();
    assert_eq!(turns.len(), 1, "one call for the memories");
    let sent = turns[0].all_text();
    for text in [
        "## user/db-pool",
        BODY,
        "Connection pool sizing",
        "## user/release-day",
        "Releases go out on Thursdays",
    ] {
        assert!(sent.contains(text), "the model did not get {text:?}");
    }
    assert!(
        !sent.contains("ten requests a second"),
        "a memory that says when it is needed was sent"
    );
    assert!(!sent.contains(SECRET), "a secret reached the model");
    assert!(
        sent.contains("[secret masked: "),
        "the secret is not masked"
    );
    assert_guarded(&turns[0], &sessions_dir, &person_sessions);
    let listed = proposals(&world);
    assert_eq!(listed.len(), 2, "{listed:?}");
    let db = listed.iter().find(|p| p["name"] == "db-pool").unwrap();
    assert_eq!(db["action"], "when", "{db}");
    assert_eq!(db["agent"], agent);
    assert_eq!(
        db["when"],
        json!(["bumping the DB pool size", "too many connections error"])
    );
    assert_eq!(std::fs::read_to_string(&db_pool).unwrap(), before);

    // Accepted: the file has the phrases, the same body and source.
    world
        .ambry(&["memory", "review", "accept", db["id"].as_str().unwrap()])
        .ok("review accept");
    let after = std::fs::read_to_string(&db_pool).unwrap();
    assert!(
        after.contains("when: [bumping the DB pool size, too many connections error]\n"),
        "{after}"
    );
    assert!(after.contains("source: claude-import\n"), "{after}");
    let body = |t: &str| t.split("\n---\n").nth(1).unwrap_or("").to_string();
    assert_eq!(body(&after), body(&before));
    assert_eq!(proposals(&world).len(), 1);
}

#[test]
fn claude_code_proposes_when_phrases_and_an_accept_writes_them() {
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
fn codex_proposes_when_phrases_and_an_accept_writes_them() {
    journey("codex", Step::Text(answer().to_string()));
}
