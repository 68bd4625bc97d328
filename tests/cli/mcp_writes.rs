//! What an agent may write through `ambry mcp` where the person decides: a rule it proposes
//! waits off for the person (DESIGN §16), and team memory is saved only in a repository the
//! person trusts (DESIGN §15).

use serde_json::{json, Value};

use crate::mcp::{call, connect, git_repo, ok_json, text};
use crate::support::Sandbox;

/// An agent may propose a rule (DESIGN §16): stored off, listed in the review inbox, checked
/// only once the person turns it on, and never a replacement for a rule the person set.
#[tokio::test]
async fn an_agents_rule_is_stored_off_and_waits_for_the_person() {
    let s = Sandbox::new();
    let client = connect(&s, s.cwd.path(), None).await;
    let proposal = json!({
        "name": "no-yarn", "type": "feedback", "description": "npm workspaces, not yarn",
        "body": "We moved from yarn to npm workspaces.",
        "enforce": {"tool": ["Bash"], "match": "\\byarn\\b", "action": "deny"}
    });
    let saved = ok_json(&call(&client, "memory_save", proposal.clone()).await);
    assert_eq!(saved["enforce"]["status"], "proposed", "{saved}");
    let review = s
        .ambry()
        .args(["--json", "memory", "review"])
        .output()
        .unwrap();
    let review: Value = serde_json::from_slice(&review.stdout).unwrap();
    let findings = review["findings"]
        .as_array()
        .or(review.as_array())
        .unwrap()
        .clone();
    assert!(
        findings
            .iter()
            .any(|f| f["kind"] == "rule_proposed" && f["memory"]["name"] == "no-yarn"),
        "{review}"
    );
    let payload = json!({"session_id": "s", "cwd": s.cwd.path(), "hook_event_name": "PreToolUse",
                         "tool_name": "Bash", "tool_input": {"command": "yarn add x"}});
    let answer = |s: &Sandbox| {
        let out = s
            .ambry()
            .env("AMBRY_NO_SERVICE", "1")
            .args(["compose", "--hook", "claude"])
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(answer(&s), "", "a proposed rule checks nothing");
    s.ambry()
        .args(["memory", "enforce", "on", "no-yarn"])
        .assert()
        .success();
    assert!(
        answer(&s).contains("\"deny\""),
        "on once the person says so"
    );

    // The person's rule stands: another rule from the agent is refused, the same one is a no-op.
    let mut other = proposal.clone();
    other["enforce"]["match"] = json!("\\bnpm\\b");
    let refused = call(&client, "memory_save", other).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).contains("the person set"),
        "{}",
        text(&refused)
    );
    let again = ok_json(&call(&client, "memory_save", proposal).await);
    assert_eq!(again["enforce"]["status"], "on", "{again}");
    client.cancel().await.unwrap();
}

/// An agent writes team memory only where the person trusts the repository's team memory.
#[tokio::test]
async fn an_agent_saves_to_team_only_in_a_trusted_repository() {
    let s = Sandbox::new();
    git_repo(s.cwd.path());
    let client = connect(&s, s.cwd.path(), None).await;
    let memory = json!({
        "name": "release-train", "type": "project", "scope": "team",
        "description": "When releases leave", "body": "Releases leave every other Tuesday."
    });
    let refused = call(&client, "memory_save", memory.clone()).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("ambry trust"), "{}", text(&refused));
    assert!(!s.cwd.path().join(".ambry/memory/release-train.md").exists());
    s.ambry().arg("trust").assert().success();
    let saved = ok_json(&call(&client, "memory_save", memory).await);
    assert_eq!(saved["scope"], "team", "{saved}");
    assert!(s
        .cwd
        .path()
        .join(".ambry/memory/release-train.md")
        .is_file());
    client.cancel().await.unwrap();
}
