//! Claude Code (pinned npm version) with Ambry connected: `claude mcp list`, the tools offered
//! to the model, scripted tool calls that save and search through Ambry's MCP server, the
//! `UserPromptSubmit` block in the model's request, and `disconnect` taking all of it away.

use serde_json::{json, Value};

use super::journey::{self, six_tools};
use super::mock_api::{Recorded, Step};
use super::world::World;

/// Every tool result the model receives in one Anthropic request, as text.
pub fn tool_results(request: &Recorded) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    for message in request.body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                let text = match &block["content"] {
                    Value::String(s) => s.clone(),
                    other => other
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|b| b["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                };
                out.push((block["is_error"].as_bool().unwrap_or(false), text));
            }
        }
    }
    out
}

pub const ALLOW_SAVE_SEARCH: &str = "mcp__ambry__memory_save,mcp__ambry__memory_search";

#[test]
fn claude_code_journey_connect_tools_block_disconnect() {
    let world = World::new();
    journey::seed_deploy_memory(&world);
    world
        .ambry(&["connect", "claude"])
        .ok("ambry connect claude");

    let listed = world.claude(&["mcp", "list"]).ok("claude mcp list");
    assert!(
        listed.stdout.contains("ambry") && listed.stdout.contains("Connected"),
        "claude mcp list shows Ambry's server, health-checked:\n{}",
        listed.stdout
    );

    world.api.script([
        Step::claude_tool("memory_save", journey::release_day_memory()),
        Step::claude_tool("memory_search", json!({"query": "which day do we release"})),
        Step::text("Saved, and found it again."),
    ]);
    world
        .claude_prompt(journey::PROMPT, &["--allowedTools", ALLOW_SAVE_SEARCH])
        .ok("claude -p with Ambry connected");
    assert_eq!(world.api.unplayed(), 0, "every scripted step was asked for");
    let turns = world.api.turns();
    assert_eq!(turns.len(), 3, "save, search, answer");

    let offered = turns[0].tool_names();
    for tool in six_tools("mcp__ambry__") {
        assert!(offered.contains(&tool), "{tool} offered: {offered:?}");
    }
    let first = turns[0].all_text();
    assert!(
        first.contains("UserPromptSubmit hook success") && first.contains("<ambry-memory>"),
        "the hook's block reaches the model as Claude's hook message:\n{first}"
    );
    assert!(
        first.contains(journey::DEPLOY_FACT),
        "the relevant memory's body is in the block"
    );

    let saved = tool_results(&turns[1]);
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(!saved[0].0, "memory_save succeeded: {}", saved[0].1);
    let found = tool_results(&turns[2]);
    let search = &found.last().unwrap();
    assert!(
        !search.0 && search.1.contains("release-day"),
        "memory_search finds what memory_save wrote: {}",
        search.1
    );
    journey::assert_saved_on_disk(&world);

    world
        .ambry(&["disconnect", "claude"])
        .ok("ambry disconnect claude");
    let listed = world.claude(&["mcp", "list"]).ok("claude mcp list");
    assert!(
        !listed.stdout.contains("ambry"),
        "after disconnect the server is gone:\n{}",
        listed.stdout
    );
    world.api.clear();
    world.api.script([Step::text("Plain answer.")]);
    world
        .claude_prompt(journey::PROMPT, &[])
        .ok("claude -p after disconnect");
    for request in world.api.requests() {
        journey::assert_no_ambry(&request);
    }
    assert!(
        !world.api.turns().is_empty(),
        "the client still asked the model"
    );
}

#[test]
fn claude_p_runs_no_ambry_tool_it_was_not_allowed() {
    let world = World::new();
    journey::seed_deploy_memory(&world);
    world
        .ambry(&["connect", "claude"])
        .ok("ambry connect claude");
    world.api.script([
        Step::claude_tool("memory_search", json!({"query": "deploy"})),
        Step::text("Done."),
    ]);
    world
        .claude_prompt(journey::PROMPT, &[])
        .ok("claude -p without --allowedTools");
    let turns = world.api.turns();
    let results = tool_results(turns.last().unwrap());
    assert_eq!(results.len(), 1, "{results:?}");
    let (is_error, text) = &results[0];
    assert!(
        *is_error && !text.contains(journey::DEPLOY_FACT),
        "claude -p refuses even a read-only tool the person did not allow: {text}"
    );
}
