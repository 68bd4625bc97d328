//! A transcript as it happened, in real Claude Code and Codex formats: a slash command opens the
//! conversation as the person's request (`/review-pr 123`, never an ASSISTANT first turn); the
//! point where the conversation was compacted shows in the timeline as the summary that
//! continued it; the run that compacted it is titled *Conversation summary* and its request
//! to the model is folded as agent context, never a USER turn; consecutive tool calls are one
//! fold with each call and result folded inside; a Codex prompt sent with the IDE's context is
//! titled by the request, whole (past 100 characters); and search snippets mark the matched
//! words instead of showing bracket markers.

use serde_json::{json, Value};

use crate::harness::{capture, TestResult};
use crate::keys::resize;
use crate::seed::Sandbox;
use crate::ui::{self, css, testid};

const SESSION: &str = "7d0c1f2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5";
const CWD: &str = "/home/marco/projects/spotter";
const CODEX_ID: &str = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const REQUEST: &str = "Why does the pane view crash on reconnect when the socket drops and the LiveView remounts with stale assigns from the previous session?";

/// One Claude Code 2.1 line of `kind` with `content` (a string or blocks) and `extra` fields.
fn claude(kind: &str, content: Value, ts: &str, extra: Value) -> String {
    let mut line = json!({
        "parentUuid": null, "isSidechain": false, "userType": "external", "cwd": CWD, "sessionId": SESSION,
        "version": "2.1.38", "gitBranch": "master", "type": kind, "timestamp": ts,
        "uuid": format!("u-{ts}"), "message": { "role": kind, "content": content },
    });
    if let (Some(line), Some(extra)) = (line.as_object_mut(), extra.as_object()) {
        line.extend(extra.clone());
    }
    line.to_string()
}

fn tool_call(id: &str, name: &str, input: Value, ts: &str) -> String {
    claude(
        "assistant",
        json!([{ "type": "tool_use", "id": id, "name": name, "input": input }]),
        ts,
        json!({}),
    )
}

fn tool_result(id: &str, output: &str, ts: &str) -> String {
    claude(
        "user",
        json!([{ "type": "tool_result", "tool_use_id": id, "content": output, "is_error": false }]),
        ts,
        json!({}),
    )
}

fn seed(sandbox: &Sandbox) -> TestResult {
    let dir = sandbox
        .user_home
        .join(".claude/projects/-home-marco-projects-spotter");
    std::fs::create_dir_all(dir.join(SESSION).join("subagents"))?;
    let lines = [
        claude("user", json!("<command-message>review-pr is running…</command-message>\n<command-name>/review-pr</command-name>\n<command-args>123</command-args>"), "2026-02-10T22:00:00.000Z", json!({})),
        claude("user", json!([{ "type": "text", "text": "Review pull request 123: read the diff, run the tests, report risks." }]), "2026-02-10T22:00:00.100Z", json!({ "isMeta": true })),
        claude("assistant", json!([{ "type": "text", "text": "Looking at the pull request." }]), "2026-02-10T22:00:05.000Z", json!({})),
        tool_call("toolu_01", "Read", json!({ "file_path": "/repo/lib/app_web/live/pane_view_live.ex" }), "2026-02-10T22:00:06.000Z"),
        tool_result("toolu_01", "defmodule AppWeb.PaneViewLive do", "2026-02-10T22:00:06.500Z"),
        tool_call("toolu_02", "Grep", json!({ "pattern": "handle_info" }), "2026-02-10T22:00:07.000Z"),
        tool_result("toolu_02", "lib/app_web/live/pane_view_live.ex:42", "2026-02-10T22:00:07.500Z"),
        tool_call("toolu_03", "Bash", json!({ "command": "mix test", "description": "Run the tests" }), "2026-02-10T22:00:08.000Z"),
        tool_result("toolu_03", "12 tests, 0 failures", "2026-02-10T22:00:20.000Z"),
        claude("assistant", json!([{ "type": "text", "text": "The tests pass; the risk is the reconnect path." }]), "2026-02-10T22:00:25.000Z", json!({})),
        json!({ "parentUuid": null, "isSidechain": false, "userType": "external", "cwd": CWD, "sessionId": SESSION, "version": "2.1.38",
                "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false,
                "timestamp": "2026-02-10T23:00:00.000Z", "uuid": "b-1", "level": "info",
                "compactMetadata": { "trigger": "auto", "preTokens": 160000 } }).to_string(),
        claude("user", json!("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nThe person asked for a review of pull request 123; the tests pass."), "2026-02-10T23:00:00.100Z", json!({ "isCompactSummary": true, "isVisibleInTranscriptOnly": true })),
        claude("user", json!("Now fix the crash in pane_view_live.ex on reconnect."), "2026-02-10T23:01:00.000Z", json!({})),
        claude("assistant", json!([{ "type": "text", "text": "Fixed: the reconnect reloads the assigns." }]), "2026-02-10T23:02:00.000Z", json!({})),
    ];
    std::fs::write(
        dir.join(format!("{SESSION}.jsonl")),
        lines.join("\n") + "\n",
    )?;
    let run = [
        claude("user", json!("Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions."), "2026-02-10T22:59:00.000Z", json!({ "isSidechain": true })),
        claude("assistant", json!([{ "type": "text", "text": "Summary: a review of pull request 123; the reconnect path of pane_view_live.ex is the risk." }]), "2026-02-10T22:59:30.000Z", json!({ "isSidechain": true })),
    ];
    std::fs::write(
        dir.join(SESSION).join("subagents/agent-c0mpact.jsonl"),
        run.join("\n") + "\n",
    )?;

    let codex = sandbox.user_home.join(".codex/sessions/2026/02/11");
    std::fs::create_dir_all(&codex)?;
    let message = |role: &str, kind: &str, text: &str, ts: &str| {
        json!({ "timestamp": ts, "type": "response_item", "payload": { "type": "message", "role": role, "content": [{ "type": kind, "text": text }] } }).to_string()
    };
    let rollout = [
        json!({ "timestamp": "2026-02-11T09:00:00.000Z", "type": "session_meta", "payload": { "id": CODEX_ID, "timestamp": "2026-02-11T09:00:00.000Z", "cwd": CWD, "originator": "codex_vscode", "cli_version": "0.129.0", "source": "vscode" } }).to_string(),
        message("user", "input_text", &format!("# Files mentioned by the user:\n\n## pane_view_live.ex: {CWD}/lib/app_web/live/pane_view_live.ex\n\n## My request for Codex:\n{REQUEST}\n"), "2026-02-11T09:00:01.000Z"),
        message("assistant", "output_text", "The remount keeps assigns from the old socket.", "2026-02-11T09:00:09.000Z"),
    ];
    std::fs::write(
        codex.join(format!("rollout-2026-02-11T09-00-00-{CODEX_ID}.jsonl")),
        rollout.join("\n") + "\n",
    )?;
    sandbox.run_ambry(&sandbox.user_home, &["sessions", "index"])?;
    Ok(())
}

/// The open transcript's turns in order: `(testid, role, label, text)`; a tool group as
/// `("tool-group", count, open, summary)`.
async fn timeline(
    driver: &thirtyfour::WebDriver,
) -> TestResult<Vec<(String, String, String, String)>> {
    let v = driver
        .execute(
            r#"const turns = document.querySelector('[data-testid="transcript-turns"]');
               return [...turns.children].map((el) => el.dataset.testid === 'tool-group'
                 ? ['tool-group', el.dataset.count, String(el.open), el.querySelector('summary').textContent]
                 : [el.dataset.testid || '', el.dataset.role || '', el.dataset.label || '', el.textContent]);"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

async fn open_session(driver: &thirtyfour::WebDriver, id: &str, title: &str) -> TestResult {
    ui::click_on(
        driver,
        css(&format!(
            "[data-testid=\"session-row\"][data-session-id=\"{id}\"] .row-top"
        )),
        id,
    )
    .await?;
    ui::eventually(&format!("the transcript titled {title:?}"), || async {
        Ok((testid(driver, "transcript-title").await?.text().await? == title).then_some(()))
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn transcripts_keep_the_request_the_compaction_point_and_whole_titles() -> TestResult {
    let sandbox = Sandbox::new()?;
    seed(&sandbox)?;
    sandbox
        .run("transcripts_keep_the_request_the_compaction_point_and_whole_titles", |driver| async move {
            ui::ready(&driver).await?;
            resize(&driver, 1280, 800).await?;
            ui::click(&driver, "nav-sessions").await?;

            // The slash command is the person's first turn and the session's title.
            open_session(&driver, SESSION, "/review-pr 123").await?;
            let turns = timeline(&driver).await?;
            let first = turns.iter().find(|t| t.0 == "transcript-turn").ok_or("no turn")?;
            ensure!(first.1 == "user" && first.3.contains("/review-pr 123"), "the transcript opens with {first:?}");
            let count = testid(&driver, "transcript-count").await?.text().await?;
            ensure!(count == "5 messages · 3 tool calls", "the transcript counts {count:?}");
            // Three calls and their results: one fold, closed, named by its tools.
            let group = turns.iter().position(|t| t.0 == "tool-group").ok_or_else(|| format!("no tool group: {turns:?}"))?;
            ensure!(turns[group].1 == "6" && turns[group].2 == "false", "the group: {:?}", turns[group]);
            ensure!(turns[group].3.starts_with("3 tool calls") && turns[group].3.contains("Read, Grep, Bash"), "the group's summary: {:?}", turns[group].3);
            ensure!(turns.iter().filter(|t| t.1 == "tool").count() == 0, "a tool turn outside the group: {turns:?}");
            // The compaction point: the summary that continued the conversation, folded, between
            // the turns before it and the request after it.
            let compacted = turns.iter().position(|t| t.0 == "transcript-context" && t.2 == "Conversation summary")
                .ok_or_else(|| format!("no compaction point: {turns:?}"))?;
            let fix = turns.iter().position(|t| t.3.contains("Now fix the crash")).ok_or("no later request")?;
            ensure!(group < compacted && compacted < fix, "the compaction point is out of place: {turns:?}");
            capture(&driver, "transcript-fidelity").await?;

            // The compaction run: titled by what it is; its request is not the person's.
            let run = css(&format!("[data-testid=\"session-run\"][data-parent=\"{SESSION}\"]"));
            ui::click_on(&driver, run, "the compaction run").await?;
            ui::eventually("the run's transcript", || async {
                Ok((testid(&driver, "transcript-title").await?.text().await? == "Conversation summary").then_some(()))
            })
            .await?;
            let turns = timeline(&driver).await?;
            ensure!(!turns.iter().any(|t| t.1 == "user"), "the compaction request reads as a USER turn: {turns:?}");
            ensure!(turns.first().is_some_and(|t| t.0 == "transcript-context" && t.2 == "Compaction request"), "the run opens with {:?}", turns.first());

            // Codex with the IDE's context: titled by the request, whole.
            open_session(&driver, CODEX_ID, REQUEST).await?;
            let turns = timeline(&driver).await?;
            ensure!(turns.first().is_some_and(|t| t.2 == "IDE context"), "the IDE context is not folded first: {turns:?}");
            let first = turns.iter().find(|t| t.0 == "transcript-turn").ok_or("no turn")?;
            ensure!(first.1 == "user" && first.3.contains(REQUEST) && !first.3.contains("Files mentioned"), "the request turn: {first:?}");

            // Snippets mark the matched word, under a session and its run alike; no brackets.
            let query = testid(&driver, "sessions-query").await?;
            ui::fill(&query, "pane").await?;
            ui::shown(&driver, css(&format!("[data-testid=\"recall-hit\"][data-session-id=\"{SESSION}\"] [data-testid=\"recall-run\"]")), "the run under its session's hit").await?;
            let v = driver
                .execute(
                    r#"const list = document.querySelector('[data-testid="sessions-list"]');
                       return [list.textContent, list.querySelectorAll('[data-testid="recall-run"] mark').length];"#,
                    vec![],
                )
                .await?;
            let (text, run_marks): (String, usize) = serde_json::from_value(v.json().clone())?;
            ensure!(!text.contains("[pane") && !text.contains("[Pane"), "a snippet shows bracket markers: {text}");
            ensure!(run_marks > 0, "the run's snippet marks nothing: {text}");
            capture(&driver, "transcript-fidelity-search").await?;
            resize(&driver, 720, 480).await?;
            ui::click_on(&driver, css(&format!("[data-testid=\"recall-hit\"][data-session-id=\"{SESSION}\"] .row-top")), "the session's hit").await?;
            ui::eventually("the session's transcript", || async {
                Ok((testid(&driver, "transcript-title").await?.text().await? == "/review-pr 123").then_some(()))
            })
            .await?;
            capture(&driver, "transcript-fidelity-small").await?;
            Ok(())
        })
        .await
}
