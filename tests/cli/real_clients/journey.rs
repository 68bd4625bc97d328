//! What both clients' journeys share: the seeded memory and prompt, the memory a scripted tool
//! call saves, and the checks on the store and on a request that must carry nothing of Ambry.

use serde_json::{json, Value};

use super::mock_api::Recorded;
use super::world::World;

pub const PROMPT: &str =
    "How do we deploy this service? Also remember that we release on Thursdays.";
pub const DEPLOY_FACT: &str = "blue-green behind the staging gate";

pub const TOOLS: [&str; 6] = [
    "memory_save",
    "memory_search",
    "memory_get",
    "memory_list",
    "memory_forget",
    "session_recall",
];

/// The six tools as a client names them (`mcp__ambry__` for both once flattened).
pub fn six_tools(prefix: &str) -> Vec<String> {
    TOOLS.iter().map(|t| format!("{prefix}{t}")).collect()
}

/// A project memory the prompt needs, saved through the CLI before the agent starts.
pub fn seed_deploy_memory(world: &World) {
    world
        .ambry(&[
            "memory",
            "save",
            "deploy-process",
            "--type",
            "project",
            "--description",
            "How this service is deployed",
            "--scope",
            "project",
            "--body",
            &format!(
                "Deploy {DEPLOY_FACT}: run the database migrations first, then switch traffic."
            ),
        ])
        .ok("seed a project memory");
}

/// The arguments of the scripted `memory_save` call.
pub fn release_day_memory() -> Value {
    json!({
        "name": "release-day",
        "type": "project",
        "description": "Which weekday the team releases",
        "body": "We release on Thursdays, never on Fridays.",
        "scope": "project",
    })
}

/// The saved memory is a file in the project scope of the store this world uses.
pub fn assert_saved_on_disk(world: &World) {
    let listed = world
        .ambry(&["--json", "memory", "list", "--scope", "project"])
        .ok("ambry memory list");
    let list: Vec<Value> = serde_json::from_str(&listed.stdout).unwrap();
    let entry = list
        .iter()
        .find(|m| m["name"] == "release-day")
        .unwrap_or_else(|| panic!("release-day is in the project scope: {list:?}"));
    let path = std::path::PathBuf::from(entry["path"].as_str().unwrap());
    assert!(
        path.starts_with(world.store()),
        "saved into {} (the store the hook reads), not elsewhere",
        path.display()
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("We release on Thursdays"), "{text}");
}

/// A request that carries no Ambry block and offers no Ambry tool.
pub fn assert_no_ambry(request: &Recorded) {
    let text = request.all_text();
    assert!(
        !text.contains("<ambry-memory>"),
        "no Ambry block after disconnect ({})",
        request.path
    );
    let tools = request.tool_names();
    assert!(
        !tools.iter().any(|t| t.contains("ambry")),
        "no Ambry tool after disconnect: {tools:?}"
    );
}
