//! A non-default Ambry home: the hook and the MCP tools of each client use one store, whether
//! the home comes from `AMBRY_HOME` in the client's environment or only from
//! `ambry --home DIR connect` (DESIGN §13: connect writes a non-default home into both).

use serde_json::json;

use super::claude::{tool_results, ALLOW_SAVE_SEARCH};
use super::codex::{tool_outputs, APPROVE_AMBRY, TRUST};
use super::journey;
use super::mock_api::Step;
use super::world::World;

fn claude_uses_one_store(world: World) {
    journey::seed_deploy_memory(&world);
    world
        .ambry(&["connect", "claude"])
        .ok("ambry connect claude");
    world.api.script([
        Step::claude_tool("memory_save", journey::release_day_memory()),
        Step::claude_tool("memory_search", json!({"query": "which day do we release"})),
        Step::text("Done."),
    ]);
    world
        .claude_prompt(journey::PROMPT, &["--allowedTools", ALLOW_SAVE_SEARCH])
        .ok("claude -p");
    let turns = world.api.turns();
    assert!(
        turns[0].all_text().contains(journey::DEPLOY_FACT),
        "the hook read the configured home"
    );
    let results = tool_results(turns.last().unwrap());
    assert!(
        results
            .last()
            .is_some_and(|(_, t)| t.contains("release-day")),
        "the server saved to and searched one store: {results:?}"
    );
    journey::assert_saved_on_disk(&world);
}

fn codex_uses_one_store(world: World) {
    journey::seed_deploy_memory(&world);
    world.ambry(&["connect", "codex"]).ok("ambry connect codex");
    world.api.script([
        Step::codex_tool("memory_save", journey::release_day_memory()),
        Step::codex_tool("memory_search", json!({"query": "which day do we release"})),
        Step::text("Done."),
    ]);
    world
        .codex_exec(journey::PROMPT, &[TRUST, "-c", APPROVE_AMBRY])
        .ok("codex exec");
    let turns = world.api.turns();
    assert!(
        turns[0].all_text().contains(journey::DEPLOY_FACT),
        "the hook read the configured home"
    );
    let outputs = tool_outputs(turns.last().unwrap());
    assert!(
        outputs.last().is_some_and(|t| t.contains("release-day")),
        "the server saved to and searched one store: {outputs:?}"
    );
    journey::assert_saved_on_disk(&world);
}

#[test]
fn claude_code_with_ambry_home_in_the_environment_uses_one_store() {
    let world = World::new();
    claude_uses_one_store(world.with_ambry_home("store", false));
}

#[test]
fn claude_code_with_a_home_given_only_to_connect_uses_one_store() {
    let world = World::new();
    claude_uses_one_store(world.with_ambry_home("store", true));
}

#[test]
fn codex_with_ambry_home_in_the_environment_uses_one_store() {
    let world = World::new();
    codex_uses_one_store(world.with_ambry_home("store", false));
}

#[test]
fn codex_with_a_home_given_only_to_connect_uses_one_store() {
    let world = World::new();
    codex_uses_one_store(world.with_ambry_home("store", true));
}
