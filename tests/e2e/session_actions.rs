//! Sessions as a person acts on them, by keyboard: a long title is read whole, a task
//! notification the agent injected is shown as agent context (never as the person's words),
//! what Ambry gave the session is listed, the matching turn is kept as a memory whose `source:`
//! names the session (Tab to *Save as memory…*, Enter, type, Ctrl+S), a compaction run that
//! matches is one result with its conversation, and a transcript whose file was deleted is
//! removed from the app itself.

use std::io::Write;

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{focused, press, press_ctrl, resize};
use crate::seed::Sandbox;
use crate::ui::{self, css, testid, text_contains};

const TITLE: &str = "Moving the nightly deploy from the blue pool to the green pool without any downtime for billing";
const CLAUDE_SESSION: &str = "55604662-cf2a-4331-851a-ec234028f8ca";

fn claude_line(kind: &str, text: &str, ts: &str) -> String {
    serde_json::json!({
        "parentUuid": null, "isSidechain": true, "userType": "external", "cwd": "/home/marco/projects/spotter",
        "sessionId": CLAUDE_SESSION, "version": "2.1.38", "type": kind, "timestamp": ts,
        "message": { "role": kind, "content": text },
    })
    .to_string()
}

async fn open_by_keyboard(driver: &WebDriver, query: &str, id: &str, title: &str) -> TestResult {
    let q = testid(driver, "sessions-query").await?;
    q.click().await?;
    ui::fill(&q, query).await?;
    // The new query's answer, not the previous one still on screen.
    ui::eventually(&format!("{id} as the top hit"), || async {
        let hits = driver.find_all(ui::tid("recall-hit")).await?;
        let first = match hits.first() {
            Some(h) => h.attr("data-session-id").await?,
            None => None,
        };
        Ok((first.as_deref() == Some(id)).then_some(()))
    })
    .await?;
    press(driver, Key::Tab).await?;
    press(driver, Key::Enter).await?;
    text_contains(driver, "transcript-title", title).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_session_is_read_whole_kept_as_a_memory_and_pruned_from_the_app() -> TestResult {
    let sandbox = Sandbox::new()?;
    let cwd = sandbox.user_home.clone();
    sandbox.save_user(
        "green-pool",
        "reference",
        "Where the nightly deploys go",
        "The nightly deploys go through the green pool since the migration.",
    )?;
    sandbox.write_session(
        "deploy-talk",
        TITLE,
        &cwd,
        &[
            ("user", "<task-notification>\n<task-id>b7</task-id>\n<status>completed</status>\n<summary>Background build finished</summary>\n</task-notification>\nWhere do the nightly deploys go now?"),
            ("assistant", "The nightly deploys go through the green pool; the blue pool is drained."),
        ],
    )?;
    // The real hook gives the session its memory and records it in the ledger.
    let payload = serde_json::json!({
        "session_id": "deploy-talk", "cwd": cwd,
        "hook_event_name": "UserPromptSubmit", "prompt": "where do the nightly deploys go now",
    });
    let mut hook = sandbox
        .ambry(&cwd)?
        .args(["compose", "--hook", "claude"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    hook.stdin
        .take()
        .ok_or("no stdin")?
        .write_all(payload.to_string().as_bytes())?;
    let given = hook.wait_with_output()?;
    ensure!(
        String::from_utf8_lossy(&given.stdout).contains("green-pool"),
        "the hook did not give green-pool: {}",
        String::from_utf8_lossy(&given.stdout)
    );
    // A Claude Code session compacted once: its compaction run matches the query too.
    let claude_dir = sandbox
        .user_home
        .join(".claude/projects/-home-marco-projects-spotter");
    std::fs::create_dir_all(claude_dir.join(CLAUDE_SESSION).join("subagents"))?;
    std::fs::copy(
        crate::harness::manifest_dir()
            .join("src-tauri/core/tests/fixtures/formats/claude-code/short.jsonl"),
        claude_dir.join(format!("{CLAUDE_SESSION}.jsonl")),
    )?;
    std::fs::write(
        claude_dir
            .join(CLAUDE_SESSION)
            .join("subagents/agent-a1b2c3.jsonl"),
        [
            claude_line(
                "user",
                "Your task is to create a detailed summary of the conversation so far.",
                "2026-02-10T22:00:00Z",
            ),
            claude_line(
                "assistant",
                "Summary: the phx server did not start because of a missing dependency.",
                "2026-02-10T22:00:30Z",
            ),
        ]
        .join("\n")
            + "\n",
    )?;
    // Indexed, then its file deleted (as Claude Code's clean-up would).
    let gone = sandbox.write_session(
        "redis-decision",
        "Dropping the Redis cache",
        &cwd,
        &[
            ("user", "Should we drop the Redis cache?"),
            ("assistant", "Yes."),
        ],
    )?;
    sandbox.run_ambry(&cwd, &["sessions", "index"])?;
    std::fs::remove_file(&gone)?;
    let memory_file = sandbox.user_memory_file("nightly-deploys-green-pool");

    sandbox
        .run(
            "a_session_is_read_whole_kept_as_a_memory_and_pruned_from_the_app",
            move |driver| async move {
                ui::ready(&driver).await?;
                resize(&driver, 1280, 800).await?;
                ui::click(&driver, "nav-sessions").await?;
                open_by_keyboard(&driver, "blue pool drained", "deploy-talk", TITLE).await?;

                // The title is read whole, in the list and over the transcript.
                let clipped: bool = driver
                    .execute(
                        r#"const row = document.querySelector('[data-testid="recall-hit"][data-session-id="deploy-talk"] .row-name');
                           const head = document.querySelector('[data-testid="transcript-title"]');
                           return row.textContent !== arguments[0] || row.scrollHeight > row.clientHeight + 1
                               || row.scrollWidth > row.clientWidth + 1 || head.scrollWidth > head.clientWidth + 1;"#,
                        vec![serde_json::json!(TITLE)],
                    )
                    .await?
                    .convert()?;
                ensure!(!clipped, "the session title is cut in the list or the transcript");

                // The task notification is agent context, not the person's words.
                let context = ui::shown(&driver, ui::tid("transcript-context"), "the agent context").await?;
                ensure!(
                    context.attr("data-label").await?.as_deref() == Some("Task notification"),
                    "the injected block is not named a task notification"
                );
                let said = ui::texts(&driver, css("[data-testid=\"transcript-turn\"][data-role=\"user\"] .turn-text")).await?;
                ensure!(
                    said == ["Where do the nightly deploys go now?"],
                    "the person's turns show {said:?}"
                );
                // What Ambry gave it.
                let given = ui::shown(&driver, ui::tid("transcript-injections"), "what Ambry gave").await?;
                ensure!(
                    given.text().await?.contains("gave this session"),
                    "injections summary: {}",
                    given.text().await?
                );
                ensure!(
                    !driver.find_all(css("[data-testid=\"injection-row\"][data-name=\"green-pool\"]")).await?.is_empty(),
                    "green-pool is not listed as given"
                );
                capture(&driver, "session-actions-transcript").await?;

                // Keyboard: from the transcript to Save as memory…, then type and Ctrl+S.
                let mut reached = false;
                for _ in 0..8 {
                    press(&driver, Key::Tab).await?;
                    if focused(&driver).await?.testid == "transcript-save" {
                        reached = true;
                        break;
                    }
                }
                ensure!(reached, "Tab never reached Save as memory…");
                press(&driver, Key::Enter).await?;
                let body = ui::shown(&driver, ui::tid("passage-body"), "the passage dialog").await?;
                let passage = ui::value_of(&body).await?;
                ensure!(
                    passage.contains("green pool; the blue pool is drained"),
                    "the dialog starts from {passage:?}, not the matching turn"
                );
                let name = testid(&driver, "passage-name").await?;
                ui::fill(&name, "nightly-deploys-green-pool").await?;
                testid(&driver, "passage-description").await?.send_keys("Where nightly deploys go").await?;
                capture(&driver, "session-actions-save").await?;
                press_ctrl(&driver, "s").await?;
                ui::gone(&driver, ui::tid("passage-dialog"), "the passage dialog").await?;
                let text = std::fs::read_to_string(&memory_file)?;
                ensure!(
                    text.contains("source: session ambry deploy-talk"),
                    "the memory does not name its session:\n{text}"
                );

                // The compaction run is one result with its conversation.
                let q = testid(&driver, "sessions-query").await?;
                q.click().await?;
                ui::fill(&q, "phx server").await?;
                ui::eventually("one result for the compacted conversation", || async {
                    let hits = driver.find_all(ui::tid("recall-hit")).await?;
                    let runs = driver
                        .find_all(css(&format!("[data-testid=\"recall-hit\"][data-session-id=\"{CLAUDE_SESSION}\"] [data-testid=\"recall-run\"][data-kind=\"compaction\"]")))
                        .await?;
                    Ok((hits.len() == 1 && runs.len() == 1).then_some(()))
                })
                .await?;

                // A deleted transcript is removed from here, no command line needed.
                open_by_keyboard(&driver, "Redis cache", "redis-decision", "Dropping the Redis cache").await?;
                let banner = testid(&driver, "transcript-vaulted").await?.text().await?;
                ensure!(!banner.contains("ambry sessions"), "the banner still sends the person to the CLI: {banner}");
                ui::click(&driver, "transcript-prune").await?;
                ui::click(&driver, "confirm-ok").await?;
                ui::shown(&driver, ui::tid("transcript-empty"), "nothing open after the removal").await?;
                let q = testid(&driver, "sessions-query").await?;
                ui::fill(&q, "Redis").await?;
                ui::shown(&driver, ui::tid("sessions-empty"), "no match for the removed session").await?;
                Ok(())
            },
        )
        .await
}
