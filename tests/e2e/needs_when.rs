//! The review's "needs when" finding in the app (DESIGN §5), by keyboard: a memory an agent had
//! to fetch because its turn was not given it shows the prompt it was fetched for as its first
//! `when` phrase; edited and saved with Ctrl+Enter, the phrases are in the file and the finding
//! is gone.

use std::io::Write;
use std::process::Stdio;

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{focus_on, press_ctrl, resize};
use crate::seed::Sandbox;
use crate::ui::{self, css, shown};

const ASKED: &str = "and how many connections may the worker open?";

/// One composed turn of session `s1` (the ledger records what it was given) and its transcript,
/// where the agent then fetched `db-pool`, indexed.
fn a_session_that_fetched_db_pool(sandbox: &Sandbox) -> TestResult {
    let cwd = &sandbox.user_home;
    let mut hook = sandbox
        .ambry(cwd)?
        .env("AMBRY_NO_SERVICE", "1")
        .args(["compose", "--hook", "claude"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let payload = serde_json::json!({"session_id": "s1", "cwd": cwd, "hook_event_name": "UserPromptSubmit",
                                     "prompt": "how do I install dependencies, npm install?"});
    hook.stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())?;
    let given = String::from_utf8(hook.wait_with_output()?.stdout)?;
    ensure!(
        given.contains("### use-pnpm") && !given.contains("### db-pool"),
        "the turn was given use-pnpm, not db-pool: {given}"
    );
    let line = |second: u32, kind: &str, content: serde_json::Value| {
        serde_json::json!({"type": kind, "sessionId": "s1", "cwd": cwd,
                           "timestamp": format!("2026-11-20T10:00:{second:02}Z"),
                           "message": {"role": kind, "content": content}})
        .to_string()
    };
    let lines = [
        line(
            0,
            "user",
            serde_json::json!("how do I install dependencies, npm install?"),
        ),
        line(10, "user", serde_json::json!(ASKED)),
        line(
            11,
            "assistant",
            serde_json::json!([{"type": "tool_use", "id": "t1", "name": "mcp__ambry__memory_get",
                                "input": {"name": "db-pool"}}]),
        ),
    ];
    let dir = sandbox.user_home.join(".claude/projects/-work");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("s1.jsonl"), lines.join("\n") + "\n")?;
    sandbox.run_ambry(cwd, &["sessions", "index"])?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_memory_an_agent_had_to_fetch_is_given_when_phrases_from_review() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "use-pnpm",
        "feedback",
        "Installing dependencies",
        "Never run npm install here; use pnpm install (the lockfile is pnpm's).\n",
    )?;
    sandbox.save_user(
        "db-pool",
        "project",
        "Connection pool sizing",
        "Max 20 connections per pod; pgbouncer in front.\n",
    )?;
    a_session_that_fetched_db_pool(&sandbox)?;
    // An agent program that exists, for the dry run of *Say when…* (which sends nothing).
    std::fs::write(
        sandbox.home.join("config.toml"),
        "[distill]\nclaude_command = \"/bin/true\"\n",
    )?;
    let file = sandbox.user_memory_file("db-pool");
    sandbox
        .run(
            "a_memory_an_agent_had_to_fetch_is_given_when_phrases_from_review",
            |driver| async move {
                ui::ready(&driver).await?;
                crate::review::open(&driver).await?;
                resize(&driver, 720, 480).await?;
                let card = shown(
                    &driver,
                    css("[data-testid=\"review-finding\"][data-kind=\"needs_when\"]"),
                    "the needs-when finding",
                )
                .await?;
                let fetch = card.find(ui::tid("review-fetch")).await?.text().await?;
                ensure!(fetch.contains(ASKED), "the fetch shows its prompt: {fetch}");
                let phrases = card.find(ui::tid("review-when-phrases")).await?;
                let offered = phrases.prop("value").await?.unwrap_or_default();
                ensure!(
                    offered == ASKED,
                    "the prompt is offered as a phrase: {offered:?}"
                );
                crate::harness::capture(&driver, "review-needs-when-720").await?;
                // Beside the finding, the agent can propose phrases for every memory without
                // them: the header's *Say when…*, whole in a small window, opens its dry run.
                let button =
                    crate::keys::rect(&driver, "[data-testid=\"review-annotate\"]").await?;
                ensure!(
                    button.left >= 0.0 && button.right <= button.vw && button.bottom <= button.vh,
                    "Say when… is outside the window at 720×480: {button:?}"
                );
                ui::click(&driver, "review-annotate").await?;
                let dry =
                    ui::text_contains(&driver, "confirm-message", "in one call to claude").await?;
                ensure!(
                    dry.contains("2 memories"),
                    "both memories without when are offered: {dry}"
                );
                crate::keys::press(&driver, Key::Escape).await?;
                ui::gone(&driver, ui::tid("confirm-message"), "the dry run to close").await?;
                focus_on(&driver, "review-when-phrases").await?;
                press_ctrl(&driver, "a").await?;
                driver
                    .action_chain()
                    .send_keys("connections the worker may open\nsizing the DB pool")
                    .perform()
                    .await?;
                press_ctrl(&driver, "\u{E007}").await?;
                ui::gone(
                    &driver,
                    css("[data-kind=\"needs_when\"]"),
                    "the finding, once the memory says when",
                )
                .await?;
                Ok(())
            },
        )
        .await?;
    let saved = std::fs::read_to_string(&file)?;
    ensure!(
        saved.contains("when: [connections the worker may open, sizing the DB pool]")
            || (saved.contains("connections the worker may open")
                && saved.contains("sizing the DB pool")
                && saved.contains("when:")),
        "the phrases are in the file:\n{saved}"
    );
    ensure!(
        saved.contains("Max 20 connections per pod; pgbouncer in front."),
        "the body is kept:\n{saved}"
    );
    Ok(())
}
