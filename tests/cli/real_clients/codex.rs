//! Codex (pinned npm version) with Ambry connected: `codex mcp list`, the tools offered to the
//! model (one `namespace` of MCP tools), scripted tool calls through Ambry's MCP server, the
//! `UserPromptSubmit` block as a `developer` message, hook trust, approvals, and `disconnect`.
//!
//! Hook trust: these runs pass `--dangerously-bypass-hook-trust` (the flag Codex documents for
//! automation), not the app-server's `config/batchWrite` of `hooks.state`: what the hook gives
//! the model is the subject here; the trust state itself is the product's `doctor` check, and
//! `untrusted_hook_is_skipped_without_a_word` pins what happens without either.

use serde_json::{json, Value};

use super::journey::{self, six_tools};
use super::mock_api::{Recorded, Step};
use super::world::World;

pub const TRUST: &str = "--dangerously-bypass-hook-trust";
/// Lets `codex exec` (approval `never`) run Ambry's tools that are not annotated read-only.
pub const APPROVE_AMBRY: &str = "mcp_servers.ambry.default_tools_approval_mode=\"approve\"";

/// Every tool output the model receives in one Responses request, as text.
pub fn tool_outputs(request: &Recorded) -> Vec<String> {
    request.body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item["type"] == "function_call_output")
        .map(|item| match &item["output"] {
            Value::String(s) => s.clone(),
            other => other
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        })
        .collect()
}

/// The texts of the `developer` messages of one request (where Codex puts hook output).
pub fn developer_texts(request: &Recorded) -> Vec<String> {
    request.body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item["role"] == "developer")
        .map(|item| {
            let mut text = String::new();
            for part in item["content"].as_array().into_iter().flatten() {
                text.push_str(part["text"].as_str().unwrap_or(""));
            }
            text
        })
        .collect()
}

fn ambry_block_messages(request: &Recorded) -> Vec<String> {
    developer_texts(request)
        .into_iter()
        .filter(|t| t.contains("<ambry-memory>"))
        .collect()
}

#[test]
fn codex_journey_connect_tools_block_disconnect() {
    let world = World::new();
    journey::seed_deploy_memory(&world);
    world.ambry(&["connect", "codex"]).ok("ambry connect codex");

    let listed = world.codex(&["mcp", "list"]).ok("codex mcp list");
    assert!(
        listed.stdout.contains("ambry"),
        "codex mcp list shows Ambry's server:\n{}",
        listed.stdout
    );

    world.api.script([
        Step::codex_tool("memory_save", journey::release_day_memory()),
        Step::codex_tool("memory_search", json!({"query": "which day do we release"})),
        Step::text("Saved, and found it again."),
    ]);
    world
        .codex_exec(journey::PROMPT, &[TRUST, "-c", APPROVE_AMBRY])
        .ok("codex exec with Ambry connected");
    assert_eq!(world.api.unplayed(), 0, "every scripted step was asked for");
    let turns = world.api.turns();
    assert_eq!(turns.len(), 3, "save, search, answer");

    let offered = turns[0].tool_names();
    for tool in six_tools("mcp__ambry__") {
        assert!(offered.contains(&tool), "{tool} offered: {offered:?}");
    }
    let blocks = ambry_block_messages(&turns[0]);
    assert_eq!(
        blocks.len(),
        2,
        "each hook's block reaches the model as one developer message (SessionStart, then the prompt's)"
    );
    assert!(
        blocks[0].contains("## Memory map"),
        "the context starts with the memory map: {}",
        blocks[0]
    );
    assert!(
        blocks[1].contains(journey::DEPLOY_FACT),
        "the relevant memory's body is in it"
    );

    let outputs = tool_outputs(&turns[2]);
    assert_eq!(outputs.len(), 2, "{outputs:?}");
    assert!(
        !outputs[0].contains("requires approval"),
        "memory_save ran: {}",
        outputs[0]
    );
    assert!(
        outputs[1].contains("release-day"),
        "memory_search finds what memory_save wrote: {}",
        outputs[1]
    );
    journey::assert_saved_on_disk(&world);

    world
        .ambry(&["disconnect", "codex"])
        .ok("ambry disconnect codex");
    let listed = world.codex(&["mcp", "list"]).ok("codex mcp list");
    assert!(
        !listed.stdout.contains("ambry"),
        "after disconnect the server is gone:\n{}",
        listed.stdout
    );
    world.api.clear();
    world.api.script([Step::text("Plain answer.")]);
    world
        .codex_exec(journey::PROMPT, &[TRUST])
        .ok("codex exec after disconnect");
    for request in world.api.requests() {
        journey::assert_no_ambry(&request);
    }
    assert!(
        !world.api.turns().is_empty(),
        "the client still asked the model"
    );
}

#[test]
fn untrusted_hook_is_skipped_without_a_word() {
    let world = World::new();
    journey::seed_deploy_memory(&world);
    world.ambry(&["connect", "codex"]).ok("ambry connect codex");
    world.api.script([Step::text("Answer.")]);
    let run = world
        .codex_exec(journey::PROMPT, &[])
        .ok("codex exec, hook not trusted");
    let turns = world.api.turns();
    assert_eq!(turns.len(), 1);
    assert!(
        ambry_block_messages(&turns[0]).is_empty(),
        "Codex 0.169 runs no untrusted hook: no block"
    );
    assert!(
        turns[0]
            .tool_names()
            .contains(&"mcp__ambry__memory_search".to_string()),
        "the MCP tools need no hook trust"
    );
    assert!(
        !run.stderr.contains("ambry compose"),
        "and says nothing about the skipped hook:\n{}",
        run.stderr
    );
}

#[test]
fn codex_runs_read_only_tools_without_an_approval_policy() {
    let world = World::new();
    journey::seed_deploy_memory(&world);
    world.ambry(&["connect", "codex"]).ok("ambry connect codex");
    world.api.script([
        Step::codex_tool("memory_search", json!({"query": "deploy"})),
        Step::codex_tool(
            "memory_get",
            json!({"name": "deploy-process", "scope": "project"}),
        ),
        Step::codex_tool("memory_list", json!({"scope": "project"})),
        Step::codex_tool("session_recall", json!({"query": "deploy"})),
        Step::codex_tool("memory_save", journey::release_day_memory()),
        Step::codex_tool(
            "memory_forget",
            json!({"name": "deploy-process", "scope": "project"}),
        ),
        Step::text("Done."),
    ]);
    world
        .codex_exec(journey::PROMPT, &[TRUST])
        .ok("codex exec without an approval policy");
    let turns = world.api.turns();
    assert_eq!(turns.len(), 7);
    let outputs = tool_outputs(&turns[6]);
    assert_eq!(outputs.len(), 6, "{outputs:?}");
    for (tool, output) in [
        "memory_search",
        "memory_get",
        "memory_list",
        "session_recall",
    ]
    .iter()
    .zip(&outputs)
    {
        assert!(
            !output.contains("requires approval") && !output.contains("rejected"),
            "{tool} is read-only and runs without an approval policy: {output}"
        );
    }
    assert!(
        outputs[1].contains(journey::DEPLOY_FACT),
        "memory_get returned the body: {}",
        outputs[1]
    );
    // memory_save is annotated additive (readOnlyHint false, destructiveHint false): Codex 0.169
    // runs it without an approval policy too (measured; docs/agents.md says so).
    assert!(
        !outputs[4].contains("requires approval") && outputs[4].contains("\"created\":true"),
        "memory_save (additive) runs without an approval policy: {}",
        outputs[4]
    );
    assert!(
        outputs[5].contains("approval") || outputs[5].contains("rejected"),
        "memory_forget (destructive) still needs the person's approval: {}",
        outputs[5]
    );
    let listed = world
        .ambry(&["--json", "memory", "list", "--scope", "project"])
        .ok("ambry memory list");
    assert!(
        listed.stdout.contains("release-day"),
        "the additive save landed in the store: {}",
        listed.stdout
    );
    assert!(
        listed.stdout.contains("deploy-process"),
        "the refused forget removed nothing: {}",
        listed.stdout
    );
}
