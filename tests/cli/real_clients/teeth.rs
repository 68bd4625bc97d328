//! Memories with teeth (DESIGN §16) through the real clients: `ambry connect` installs the
//! `PreToolUse` hook, and the model's shell calls meet the memories' rules. What the model
//! receives is the truth: a denied call never runs and the model reads why (the memory's name and
//! body); an unmatched call runs untouched; a reminded call runs with the memory in the next
//! request.

use serde_json::json;

use super::claude::tool_results;
use super::codex::{developer_texts, tool_outputs, TRUST};
use super::mock_api::{Recorded, Step};
use super::world::World;

const DENY_BODY: &str = "DENY-BODY-7f3: never leave a marker-denied file; use marker-ok instead.";
/// How a reminder opens (core's `enforce::check`).
const REMINDER: &str = "Before this Bash call, the person's memory applies";
const REMIND_BODY: &str = "REMIND-BODY-91c: a reminded marker must be deleted after the run.";

/// Two memories with rules, saved as a person does, and the agent connected.
fn world_with_rules(agent: &str) -> World {
    let world = World::new();
    for (name, body, pattern, action) in [
        ("no-denied-markers", DENY_BODY, r"\bmarker-denied\b", "deny"),
        (
            "reminded-markers",
            REMIND_BODY,
            r"\bmarker-reminded\b",
            "remind",
        ),
    ] {
        world
            .ambry(&[
                "memory",
                "save",
                name,
                "--type",
                "feedback",
                "--description",
                "How markers are handled here",
                "--body",
                body,
                "--enforce-tool",
                "Bash",
                "--enforce-match",
                pattern,
                "--enforce-action",
                action,
            ])
            .ok("ambry memory save with a rule");
    }
    world.ambry(&["connect", agent]).ok("ambry connect");
    world
}

/// Three shell calls in one session: one a rule denies, one no rule matches, one a rule reminds of.
fn three_calls(world: &World, tool: impl Fn(String) -> Step) -> [std::path::PathBuf; 3] {
    let markers =
        ["marker-denied", "marker-ok", "marker-reminded"].map(|m| world.project().join(m));
    world.api.script([
        tool(format!("touch {}", markers[0].display())),
        tool(format!("touch {}", markers[1].display())),
        tool(format!("touch {}", markers[2].display())),
        Step::text("done"),
    ]);
    markers
}

fn assert_outcomes(
    markers: &[std::path::PathBuf; 3],
    turns: &[Recorded],
    denial: &str,
    reminded: &str,
) {
    assert!(!markers[0].exists(), "the denied call never ran");
    assert!(markers[1].exists(), "the call no rule matches ran");
    assert!(markers[2].exists(), "the reminded call ran");
    assert!(
        denial.contains("no-denied-markers") && denial.contains(DENY_BODY),
        "the model reads the denying memory's name and body as the reason: {denial}"
    );
    assert!(
        !turns[2].all_text().contains(REMINDER),
        "before the reminded call, no reminder was in the request"
    );
    assert!(
        reminded.contains(REMINDER)
            && reminded.contains(REMIND_BODY)
            && reminded.contains("reminded-markers"),
        "the reminding memory reaches the next request: {reminded}"
    );
}

#[test]
fn claude_code_denies_a_call_a_rule_forbids_and_reminds_before_another() {
    let world = world_with_rules("claude");
    let markers = three_calls(&world, |command| Step::Tool {
        name: "Bash".into(),
        namespace: None,
        input: json!({"command": command, "description": "make a marker"}),
    });
    world
        .claude_prompt("make the markers", &["--allowedTools", "Bash"])
        .ok("claude -p with rules");
    assert_eq!(world.api.unplayed(), 0, "every scripted step was asked for");
    let turns = world.api.turns();
    assert_eq!(turns.len(), 4);
    let denied = tool_results(&turns[1]);
    let (is_error, denial) = denied.last().expect("the denied call's result");
    assert!(is_error, "Claude Code reports the denied call as an error");
    let ran = tool_results(&turns[2]);
    assert!(
        !ran.last().unwrap().0,
        "the unmatched call succeeded: {ran:?}"
    );
    assert_outcomes(&markers, &turns, denial, &turns[3].all_text());
    // The session's transcript, as `sessions show` prints it, marks what the rules did.
    world.ambry(&["sessions", "index"]).ok("sessions index");
    let listed = world
        .ambry(&["--json", "sessions", "list"])
        .ok("sessions list");
    let sessions: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    let id = sessions[0]["session_id"]
        .as_str()
        .unwrap_or_else(|| panic!("the session is indexed: {sessions}"));
    let shown = world.ambry(&["sessions", "show", id]).ok("sessions show");
    assert!(
        shown.stdout.contains("DENIED by user/no-denied-markers")
            && shown.stdout.contains("reminded by user/reminded-markers"),
        "{}",
        shown.stdout
    );
}

#[test]
fn codex_denies_a_call_a_rule_forbids_and_reminds_before_another() {
    let world = world_with_rules("codex");
    let markers = three_calls(&world, |command| Step::Tool {
        name: "exec_command".into(),
        namespace: None,
        input: json!({"cmd": command}),
    });
    world
        .codex_exec("make the markers", &[TRUST, "--sandbox", "workspace-write"])
        .ok("codex exec with rules");
    assert_eq!(world.api.unplayed(), 0, "every scripted step was asked for");
    let turns = world.api.turns();
    assert_eq!(turns.len(), 4);
    let denial = tool_outputs(&turns[1])
        .pop()
        .expect("the denied call's output");
    assert!(
        denial.contains("blocked by PreToolUse hook"),
        "Codex reports the denied call as blocked: {denial}"
    );
    let reminded = developer_texts(&turns[3]).join("\n");
    assert_outcomes(&markers, &turns, &denial, &reminded);
}
