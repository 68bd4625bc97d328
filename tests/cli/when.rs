//! What a memory is for, end to end (DESIGN §5): the phrases an agent (`memory_save`) or a
//! person (`memory save --when`) gives bring the memory into the turn whose prompt is in those
//! words, and a prompt that refers back is ranked with the exchange before it, read from the
//! transcript the hook payload names.

use serde_json::{json, Value};

use crate::mcp::{call, connect, ok_json};
use crate::support::Sandbox;

fn hook(sb: &Sandbox, payload: Value) -> String {
    let out = sb
        .ambry()
        .env("AMBRY_NO_SERVICE", "1")
        .env("AMBRY_MODELS_DIR", sb.home.path().join("no-models"))
        .args(["compose", "--hook", "claude"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn turn(sb: &Sandbox, session: &str, prompt: &str, transcript: Option<&std::path::Path>) -> String {
    let mut payload = json!({"session_id": session, "cwd": sb.cwd.path(),
                             "hook_event_name": "UserPromptSubmit", "prompt": prompt});
    if let Some(t) = transcript {
        payload["transcript_path"] = json!(t);
    }
    hook(sb, payload)
}

fn save_retries(sb: &Sandbox) {
    sb.ambry()
        .args(["memory", "save", "retries", "--type", "project"])
        .args([
            "--description",
            "Retry policy",
            "--body",
            "Back off exponentially.",
        ])
        .assert()
        .success();
}

#[tokio::test]
async fn an_agents_when_phrases_bring_its_memory_to_a_prompt_in_those_words() {
    let sb = Sandbox::new();
    save_retries(&sb);
    let prompt = "the payments api keeps answering 429";
    assert!(!turn(&sb, "before", prompt, None).contains("### db-pool"));
    let client = connect(&sb, sb.cwd.path(), None).await;
    let saved = ok_json(
        &call(
            &client,
            "memory_save",
            json!({"name": "db-pool", "type": "project", "description": "Connection pool sizing",
                   "body": "Max 20 connections per pod; pgbouncer in front.",
                   "when": ["a 429 from the payments API", "bumping the pool size"]}),
        )
        .await,
    );
    assert_eq!(
        saved["when"],
        json!(["a 429 from the payments API", "bumping the pool size"])
    );
    assert!(turn(&sb, "after", prompt, None).contains("### db-pool"));
    let refused = call(
        &client,
        "memory_save",
        json!({"name": "db-pool", "type": "project", "description": "d", "body": "b",
               "when": ["x".repeat(200)]}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true));
}

#[test]
fn a_person_says_when_and_a_prompt_that_refers_back_finds_what_it_was_about() {
    let sb = Sandbox::new();
    save_retries(&sb);
    let out = sb
        .ambry()
        .args(["--json", "memory", "save", "db-pool", "--type", "project"])
        .args([
            "--description",
            "Connection pool sizing",
            "--body",
            "Max 20 per pod.",
        ])
        .args([
            "--when",
            "bumping the pool size",
            "--when",
            "too many connections",
        ])
        .output()
        .unwrap();
    let saved: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        saved["when"],
        json!(["bumping the pool size", "too many connections"])
    );

    let transcript = sb.cwd.path().join("t.jsonl");
    let line = |kind: &str, text: &str| {
        json!({"type": kind, "sessionId": "s", "timestamp": "2026-06-01T00:00:00Z",
               "message": {"role": kind, "content": [{"type": "text", "text": text}]}})
        .to_string()
    };
    std::fs::write(
        &transcript,
        format!(
            "{}\n{}\n",
            line("user", "set the api's connection pool to 50"),
            line("assistant", "Done.")
        ),
    )
    .unwrap();
    let prompt = "do the same for the worker";
    assert!(!turn(&sb, "alone", prompt, None).contains("### db-pool"));
    assert!(turn(&sb, "talk", prompt, Some(&transcript)).contains("### db-pool"));
}
