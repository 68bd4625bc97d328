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

/// The review closes the loop (DESIGN §5): a memory an agent had to fetch because its turn was
/// not given it is listed with the prompt it answered; `memory review when` saves the phrases,
/// and a turn in those words is then given it.
#[test]
fn a_memory_an_agent_had_to_fetch_is_listed_until_it_says_when_it_is_needed() {
    let sb = Sandbox::new();
    let save = |name: &str, description: &str, body: &str| {
        sb.ambry()
            .args(["memory", "save", name, "--type", "project"])
            .args(["--description", description, "--body", body])
            .assert()
            .success();
    };
    save(
        "use-pnpm",
        "Installing dependencies",
        "Never run npm install here; use pnpm install (the lockfile is pnpm's).",
    );
    save(
        "db-pool",
        "Connection pool sizing",
        "Max 20 connections per pod; pgbouncer in front.",
    );
    let given = turn(
        &sb,
        "s1",
        "how do I install dependencies, npm install?",
        None,
    );
    assert!(
        given.contains("### use-pnpm") && !given.contains("### db-pool"),
        "{given}"
    );
    let asked = "and how many connections may the worker open?";
    let lines = [
        json!({"type": "user", "sessionId": "s1", "cwd": sb.cwd.path(), "timestamp": "2026-11-20T10:00:00Z",
               "message": {"role": "user", "content": "how do I install dependencies, npm install?"}}),
        json!({"type": "user", "sessionId": "s1", "cwd": sb.cwd.path(), "timestamp": "2026-11-20T10:01:00Z",
               "message": {"role": "user", "content": asked}}),
        json!({"type": "assistant", "sessionId": "s1", "cwd": sb.cwd.path(), "timestamp": "2026-11-20T10:01:05Z",
               "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
                   "name": "mcp__ambry__memory_get", "input": {"name": "db-pool"}}]}}),
    ];
    let dir = sb.home.path().join(".claude/projects/-work");
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("s1.jsonl"), text).unwrap();
    sb.ambry().args(["sessions", "index"]).assert().success();

    let review = |json: bool| {
        let mut cmd = sb.ambry();
        cmd.args(["memory", "review"]);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let findings: Value = serde_json::from_str(&review(true)).unwrap();
    let needs: Vec<&Value> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "needs_when")
        .collect();
    assert_eq!(needs.len(), 1, "{findings}");
    assert_eq!(needs[0]["memory"]["name"], "db-pool");
    assert_eq!(needs[0]["fetches"][0]["prompt"], asked);
    assert_eq!(needs[0]["fetches"][0]["session_id"], "s1");
    let text = review(false);
    assert!(text.contains("needs when user/db-pool"), "{text}");
    assert!(
        text.contains(&format!(
            "ambry memory review when db-pool --scope user '{asked}'"
        )),
        "{text}"
    );

    sb.ambry()
        .args(["memory", "review", "when", "db-pool", "--scope", "user"])
        .args(["connections the worker may open", "sizing the DB pool"])
        .assert()
        .success();
    let got: Value = serde_json::from_slice(
        &sb.ambry()
            .args(["memory", "get", "db-pool", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(
        got["lifecycle"]["when"],
        json!(["connections the worker may open", "sizing the DB pool"]),
        "{got}"
    );
    assert_eq!(
        got["body"],
        "Max 20 connections per pod; pgbouncer in front.\n"
    );
    assert!(!review(false).contains("needs when"), "it says when now");
    let now_given = turn(&sb, "s2", "how many connections may the worker open?", None);
    assert!(now_given.contains("### db-pool"), "{now_given}");
}
