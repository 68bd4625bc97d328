//! A turn in its conversation, as the real clients show it (DESIGN §5): a prompt that refers
//! back ("do the same for the worker") gets the memory the exchange before it was about, read
//! from the transcript the client's `UserPromptSubmit` payload names. The first exchange happens
//! before Ambry is connected, so nothing of it is in any context Ambry gave: what reaches the
//! model on the second turn came from the transcript.

use super::codex::{developer_texts, TRUST};
use super::mock_api::Step;
use super::world::World;

const FIRST: &str = "bump the api's connection pool to 50";
const REPLY: &str = "Done: the api's connection pool is 50 now.";
const FOLLOW_UP: &str = "do the same for the worker";
/// A line of the memory's body no prompt says: it reaches the model only with the body.
const MARK: &str = "pgbouncer max_client_conn goes up with it";

fn seed_pool_memory(world: &World) {
    world
        .ambry(&[
            "memory",
            "save",
            "db-pool",
            "--type",
            "project",
            "--scope",
            "project",
            "--description",
            "Connection pool sizing",
            "--body",
            &format!("Pools are capped at 20 connections per pod; {MARK}."),
        ])
        .ok("seed the pool memory");
    let alone = world
        .ambry(&["compose", "--query", FOLLOW_UP])
        .ok("compose the prompt alone");
    assert!(
        !alone.stdout.contains(MARK),
        "the prompt alone does not bring the memory:\n{}",
        alone.stdout
    );
}

#[test]
fn claude_code_gets_what_a_prompt_refers_back_to() {
    let world = World::new();
    seed_pool_memory(&world);
    world.api.script([Step::text(REPLY)]);
    world
        .claude_prompt(FIRST, &[])
        .ok("claude -p, Ambry not connected");
    world
        .ambry(&["connect", "claude"])
        .ok("ambry connect claude");
    world.api.clear();
    world.api.script([Step::text("Done.")]);
    world
        .claude_prompt(FOLLOW_UP, &["--continue"])
        .ok("claude -p --continue, Ambry connected");
    let turns = world.api.turns();
    let last = turns
        .last()
        .expect("the prompt reached the model")
        .all_text();
    assert!(last.contains(FIRST), "the session was continued:\n{last}");
    assert!(
        last.contains(MARK),
        "the memory the exchange was about reaches the model:\n{last}"
    );
}

#[test]
fn codex_gets_what_a_prompt_refers_back_to() {
    let world = World::new();
    seed_pool_memory(&world);
    world.api.script([Step::text(REPLY)]);
    let first = world
        .codex_exec(FIRST, &[TRUST])
        .ok("codex exec, Ambry not connected");
    let thread = super::world::json_lines(&first.stdout)
        .iter()
        .find_map(|e| e["thread_id"].as_str().map(str::to_string))
        .expect("codex exec --json names its thread");
    world.ambry(&["connect", "codex"]).ok("ambry connect codex");
    world.api.clear();
    world.api.script([Step::text("Done.")]);
    world
        .codex(&[
            "exec",
            "resume",
            "--skip-git-repo-check",
            "--json",
            TRUST,
            &thread,
            FOLLOW_UP,
        ])
        .ok("codex exec resume, Ambry connected");
    let request = world
        .api
        .turns()
        .last()
        .cloned()
        .expect("the prompt reached the model");
    let developer = developer_texts(&request).join("\n");
    assert!(
        developer.contains(MARK),
        "the memory the exchange was about reaches the model:\n{developer}"
    );
}
