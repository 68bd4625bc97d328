//! What the pinned clients themselves do with a hook's output, measured with a plain command
//! hook (no Ambry) that prints a text of known size: where `SessionStart` and `UserPromptSubmit`
//! output lands in the model's request, and the size at which each client stops passing it
//! whole. docs/agents.md ("What the clients do") states these; a client upgrade that changes
//! them fails here first.

use serde_json::json;

use super::codex::{developer_texts, TRUST};
use super::mock_api::{Recorded, Step};
use super::world::{World, CLAUDE_VERSION, CODEX_VERSION};

/// A text of exactly `bytes` ASCII bytes, starting with `tag` and ending with `END-<tag>`, so a
/// request shows whether it arrived whole.
fn payload(tag: &str, bytes: usize) -> String {
    let end = format!(" END-{tag}");
    let mut text = format!("{tag} ");
    let filler = "lorem ipsum dolor sit amet ";
    while text.len() + end.len() < bytes {
        text.push_str(filler);
    }
    text.truncate(bytes - end.len());
    text.push_str(&end);
    text
}

/// Writes a hook script printing `output` and returns its command line.
fn hook_script(world: &World, name: &str, output: &str) -> String {
    let dir = world.home().join("hooks");
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join(format!("{name}.out"));
    std::fs::write(&data, output).unwrap();
    format!("cat {}", data.display())
}

fn hooks_file(events: &[(&str, String)]) -> String {
    let mut hooks = serde_json::Map::new();
    for (event, command) in events {
        hooks.insert(
            event.to_string(),
            json!([{"hooks": [{"type": "command", "command": command}]}]),
        );
    }
    serde_json::to_string_pretty(&json!({ "hooks": hooks })).unwrap()
}

/// The one string of the request that holds `needle`.
fn string_with<'a>(strings: &'a [String], needle: &str) -> Option<&'a String> {
    strings.iter().find(|s| s.contains(needle))
}

fn claude_run(start: &str, turn: &str) -> Recorded {
    let world = World::new();
    let settings = hooks_file(&[
        ("SessionStart", hook_script(&world, "start", start)),
        ("UserPromptSubmit", hook_script(&world, "turn", turn)),
    ]);
    std::fs::write(world.claude_dir().join("settings.json"), settings).unwrap();
    world.api.script([Step::text("ok")]);
    world.claude_prompt("hello there", &[]).ok("claude -p");
    world.api.turns().remove(0)
}

#[test]
fn claude_code_puts_hook_output_in_the_conversation_and_previews_it_over_10000_characters() {
    let (start, turn) = (payload("START-A", 9_990), payload("TURN-A", 9_990));
    let request = claude_run(&start, &turn);
    let strings = request.strings();
    let s = string_with(&strings, "START-A").expect("SessionStart output reaches the model");
    assert!(s.contains("END-START-A"), "9,990 characters arrive whole");
    assert!(
        s.contains("SessionStart") && s.contains("hook success"),
        "SessionStart output is wrapped as a hook message: {}",
        &s[..s.len().min(300)]
    );
    let t = string_with(&strings, "TURN-A").expect("UserPromptSubmit output reaches the model");
    assert!(t.contains("END-TURN-A"), "9,990 characters arrive whole");
    assert!(
        t.contains("UserPromptSubmit hook success"),
        "{}",
        &t[..t.len().min(300)]
    );
    let messages = request.body["messages"].as_array().unwrap();
    let prompt_at = messages
        .iter()
        .position(|m| m.to_string().contains("hello there"))
        .unwrap();
    let turn_at = messages
        .iter()
        .position(|m| m.to_string().contains("TURN-A"))
        .unwrap();
    let start_at = messages
        .iter()
        .position(|m| m.to_string().contains("START-A"))
        .unwrap();
    eprintln!(
        "claude: SessionStart in message {start_at} ({}), UserPromptSubmit in message {turn_at} ({}), prompt in message {prompt_at}; system prompt holds neither: {}",
        messages[start_at]["role"],
        messages[turn_at]["role"],
        !request.body["system"].to_string().contains("TURN-A")
    );

    let (start, turn) = (payload("START-B", 10_001), payload("TURN-B", 10_001));
    let request = claude_run(&start, &turn);
    let text = request.all_text();
    assert!(
        text.contains("<persisted-output>"),
        "over 10,000 characters Claude Code sends a preview"
    );
    assert!(
        !text.contains("END-TURN-B") && !text.contains("END-START-B"),
        "and the model never sees the end of either output"
    );
}

fn codex_run(start: &str, turn: &str) -> Recorded {
    let world = World::new();
    let json_out = |event: &str, text: &str| {
        json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})
            .to_string()
    };
    let hooks = hooks_file(&[
        (
            "SessionStart",
            hook_script(&world, "start", &json_out("SessionStart", start)),
        ),
        (
            "UserPromptSubmit",
            hook_script(&world, "turn", &json_out("UserPromptSubmit", turn)),
        ),
    ]);
    std::fs::write(world.codex_dir().join("hooks.json"), hooks).unwrap();
    world.api.script([Step::text("ok")]);
    world.codex_exec("hello there", &[TRUST]).ok("codex exec");
    world.api.turns().remove(0)
}

#[test]
fn codex_puts_hook_output_in_developer_messages_and_cuts_the_middle_of_a_long_one() {
    let (start, turn) = (payload("START-A", 8_000), payload("TURN-A", 8_000));
    let request = codex_run(&start, &turn);
    let developer = developer_texts(&request);
    let s = string_with(&developer, "START-A").expect("SessionStart output is a developer message");
    assert!(s.contains("END-START-A"), "8,000 bytes arrive whole");
    let t =
        string_with(&developer, "TURN-A").expect("UserPromptSubmit output is a developer message");
    assert!(t.contains("END-TURN-A"), "8,000 bytes arrive whole");
    let input = request.body["input"].as_array().unwrap();
    let at = |needle: &str| {
        input
            .iter()
            .position(|i| i.to_string().contains(needle))
            .unwrap()
    };
    eprintln!(
        "codex: SessionStart at input {}, prompt at input {}, UserPromptSubmit at input {}",
        at("START-A"),
        at("hello there"),
        at("TURN-A")
    );

    let (start, turn) = (payload("START-B", 12_000), payload("TURN-B", 12_000));
    let request = codex_run(&start, &turn);
    let text = request.all_text();
    assert!(
        text.contains("tokens truncated"),
        "Codex cuts the middle of a 12,000-byte output"
    );
    assert!(
        text.contains("START-B") && text.contains("END-START-B"),
        "keeping its start and its end"
    );
}

#[test]
fn the_installed_clients_are_the_pinned_versions() {
    let world = World::new();
    let claude = world.claude(&["--version"]).ok("claude --version");
    assert!(
        claude.stdout.contains(CLAUDE_VERSION),
        "docs/agents.md describes Claude Code {CLAUDE_VERSION}: {}",
        claude.stdout
    );
    let codex = world.codex(&["--version"]).ok("codex --version");
    assert!(
        codex.stdout.contains(CODEX_VERSION),
        "docs/agents.md describes Codex {CODEX_VERSION}: {}",
        codex.stdout
    );
}
