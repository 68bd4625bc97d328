//! What the app says is so: a fresh home reads OK when all it has to say is notes, and the
//! Health card follows the session index as it fills; an agent whose program is nowhere here is
//! *configured*, not *Connected*; Distill checks its agent before offering a run and says the
//! agent's own reason when one fails; the compose preview shows the block a hook composes
//! around a config.toml that does not load, with the error beside it; a filter that matches
//! nothing says so in the detail pane, with a way to clear it.

use std::path::Path;

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::seed::Sandbox;
use crate::ui::{self, css, testid, text_contains};

/// The Health card's checks as `(area, status, text)`.
async fn health(driver: &WebDriver) -> TestResult<Vec<(String, String, String)>> {
    let mut out = Vec::new();
    for check in driver.find_all(ui::tid("doctor-check")).await? {
        out.push((
            check.attr("data-area").await?.unwrap_or_default(),
            check.attr("data-status").await?.unwrap_or_default(),
            check.prop("textContent").await?.unwrap_or_default(),
        ));
    }
    Ok(out)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_fresh_home_reads_ok_and_health_follows_the_session_index_as_it_fills() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.with_models()?;
    // Claude Code is installed here (its folder exists), not connected: that it deletes old
    // transcripts is worth knowing, and nothing to fix.
    std::fs::create_dir_all(sandbox.user_home.join(".claude"))?;
    let sessions = sandbox.home.join("sessions");
    std::fs::create_dir_all(&sessions)?;
    sandbox
        .run(
            "a_fresh_home_reads_ok_and_health_follows_the_session_index_as_it_fills",
            move |driver| async move {
                ui::ready(&driver).await?;
                ui::click(&driver, "nav-settings").await?;
                testid(&driver, "settings-health").await?;
                ui::shown(
                    &driver,
                    css("[data-testid=\"doctor-check\"][data-area=\"claude code\"][data-status=\"info\"]"),
                    "Claude Code's transcript policy, as a note",
                )
                .await?;
                let seen = std::sync::Mutex::new(Vec::new());
                ui::eventually("the overall status to read OK", || {
                    let (driver, seen) = (&driver, &seen);
                    async move {
                        let status = testid(driver, "settings-status").await?;
                        *seen.lock().unwrap() = health(driver).await?;
                        Ok((status.attr("data-status").await?.as_deref() == Some("ok")
                            && status.text().await? == "OK")
                            .then_some(()))
                    }
                })
                .await
                .map_err(|e| format!("{e}; the checks: {:?}", seen.lock().unwrap()))?;
                let checks = health(&driver).await?;
                let index = checks
                    .iter()
                    .find(|(area, _, _)| area == "session index")
                    .ok_or("no session index check")?;
                ensure!(
                    index.1 == "info" && (index.2.contains("empty") || index.2.contains("does not exist yet")),
                    "the empty index of a fresh home: {index:?}"
                );

                // An agent writes its first transcript while Settings is on screen: the card
                // says what the index holds now, without leaving the view.
                let lines = [
                    serde_json::json!({"session": {"id": "first-chat", "title": "First chat", "cwd": "/tmp"}}),
                    serde_json::json!({"ts": "2026-11-02T09:00:00Z", "role": "user", "text": "Where do the logs go?"}),
                    serde_json::json!({"ts": "2026-11-02T09:01:00Z", "role": "assistant", "text": "To journald."}),
                ];
                let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                std::fs::write(sessions.join("first-chat.jsonl"), text)?;
                let seen = std::sync::Mutex::new(String::new());
                ui::eventually("the session index check to count the new session", || {
                    let (driver, seen) = (&driver, &seen);
                    async move {
                        let check = driver
                            .find(css("[data-testid=\"doctor-check\"][data-area=\"session index\"]"))
                            .await?;
                        let text = check.prop("textContent").await?.unwrap_or_default();
                        *seen.lock().unwrap() = text.clone();
                        Ok((text.contains("1 sessions") && check.attr("data-status").await?.as_deref() == Some("ok")).then_some(()))
                    }
                })
                .await
                .map_err(|e| format!("{e}; it says {:?}", seen.lock().unwrap()))?;
                Ok(())
            },
        )
        .await
}

/// Claude Code and Codex are both connected; only Codex's program is here. The card and the
/// Health check say Claude Code is configured, not connected, and why.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn an_agent_whose_program_is_not_on_path_is_configured_not_connected() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.run_ambry(&sandbox.user_home, &["connect", "claude"])?;
    sandbox.run_ambry(&sandbox.user_home, &["connect", "codex"])?;
    let path = sandbox.agents_path(&["codex"])?;
    sandbox
        .run_with_env(
            "an_agent_whose_program_is_not_on_path_is_configured_not_connected",
            &[("PATH", &path)],
            |driver| async move {
                ui::ready(&driver).await?;
                ui::click(&driver, "nav-settings").await?;
                let word = |agent: &'static str| {
                    css(&format!("[data-testid=\"agent-row\"][data-agent=\"{agent}\"] [data-testid=\"agent-state-word\"]"))
                };
                let claude = ui::texts_until(&driver, word("claude"), "Claude Code's state", |t| !t.is_empty()).await?;
                ensure!(
                    claude == ["Configured; claude not found on PATH"],
                    "Claude Code's row with no claude on PATH says {claude:?}"
                );
                let row = ui::shown(&driver, css("[data-testid=\"agent-row\"][data-agent=\"claude\"]"), "Claude Code's row").await?;
                ensure!(
                    row.attr("data-status").await?.as_deref() == Some("warn"),
                    "Claude Code's row status: {:?}",
                    row.attr("data-status").await?
                );
                let codex = ui::texts_until(&driver, word("codex"), "Codex's state", |t| !t.is_empty()).await?;
                ensure!(codex == ["Connected"], "Codex's row, its program found: {codex:?}");
                let check = ui::shown(
                    &driver,
                    css("[data-testid=\"doctor-check\"][data-area=\"claude code\"]"),
                    "Claude Code's health check",
                )
                .await?;
                let text = check.prop("textContent").await?.unwrap_or_default();
                ensure!(
                    check.attr("data-status").await?.as_deref() == Some("warn")
                        && text.contains("configured (")
                        && text.contains("`claude` not found on PATH"),
                    "Claude Code's health check: {text:?}"
                );
                Ok(())
            },
        )
        .await
}

/// Writes `[distill] claude_command = "<command>"` as config.toml.
fn distill_with(home: &Path, command: &str) -> TestResult {
    std::fs::write(
        home.join("config.toml"),
        format!("[distill]\nclaude_command = \"{command}\"\n"),
    )?;
    Ok(())
}

/// The texts of the toasts on screen, once one satisfies `ok`.
async fn toast_saying(
    driver: &WebDriver,
    what: &str,
    ok: impl Fn(&str) -> bool,
) -> TestResult<String> {
    let shown = ui::texts_until(driver, ui::tid("toast"), what, |t| {
        t.iter().any(|x| ok(x.as_str()))
    })
    .await?;
    Ok(shown
        .into_iter()
        .find(|x| ok(x.as_str()))
        .unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn distill_checks_its_agent_first_and_says_the_agents_own_reason_for_a_failure() -> TestResult
{
    let sandbox = Sandbox::new()?;
    sandbox.write_session(
        "plan-release",
        "Release planning",
        &sandbox.user_home,
        &[
            ("user", "Keep commit messages short and imperative."),
            ("assistant", "Will do."),
        ],
    )?;
    distill_with(&sandbox.home, "claude-not-on-this-machine")?;
    // A Claude Code that is installed but not logged in: its JSON result says why, exit 1.
    let script = sandbox.home.join("logged-out-claude");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > /dev/null\nprintf '%s\\n' '{}'\nexit 1\n",
            serde_json::json!({"type": "result", "subtype": "success", "is_error": true,
                "result": "Invalid API key · Please run /login"})
        ),
    )?;
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let home = sandbox.home.clone();
    sandbox
        .run(
            "distill_checks_its_agent_first_and_says_the_agents_own_reason_for_a_failure",
            move |driver| async move {
                ui::ready(&driver).await?;
                ui::open_session(&driver, "plan-release", "Release planning").await?;

                // No such program: no run is offered; what is missing and the fix are said.
                ui::click(&driver, "distill-session").await?;
                let said = toast_saying(&driver, "the missing agent to be named", |t| {
                    t.contains("not found on PATH")
                })
                .await?;
                ensure!(
                    said.contains("claude-not-on-this-machine") && said.contains("claude_command"),
                    "the refusal says {said:?}"
                );
                ensure!(
                    ui::texts(&driver, ui::tid("confirm-dialog"))
                        .await?
                        .is_empty(),
                    "a run was offered with no agent to run it"
                );
                for dismiss in driver.find_all(ui::tid("toast-dismiss")).await? {
                    let _ = dismiss.click().await;
                }
                ui::gone(&driver, ui::tid("toast"), "the notification to go").await?;

                // The agent runs and fails: its own words are the message, not folded away.
                distill_with(&home, &script.display().to_string())?;
                ui::click(&driver, "distill-session").await?;
                text_contains(&driver, "confirm-message", "1 call to claude").await?;
                ui::click(&driver, "confirm-ok").await?;
                let said =
                    toast_saying(&driver, "the agent's reason", |t| t.contains("failed")).await?;
                let message = driver
                    .find(css("[data-testid=\"toast\"] .toast-message"))
                    .await?
                    .text()
                    .await?;
                ensure!(
                    message.contains("Invalid API key · Please run /login"),
                    "the notification reads {message:?} (all of it: {said:?})"
                );
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_compose_preview_shows_what_a_hook_gives_around_a_config_that_does_not_load(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "deploy-steps",
        "feedback",
        "How to deploy",
        "Run make deploy.\n",
    )?;
    sandbox.save_user(
        "db-migrations",
        "project",
        "Database migrations",
        "Use sqlx migrate.\n",
    )?;
    std::fs::write(
        sandbox.home.join("config.toml"),
        "[retrieval]\nstrategy = \"fuzzy\"\n",
    )?;
    // What an agent's hook gets for this prompt, through the real binary.
    let payload = serde_json::json!({
        "session_id": "bad-config-session",
        "cwd": sandbox.user_home,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how do I deploy",
    });
    let out = {
        use std::io::Write;
        let mut hook = sandbox
            .ambry(&sandbox.user_home)?
            .args(["compose", "--hook", "claude"])
            .env("AMBRY_NO_SERVICE", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()?;
        hook.stdin
            .take()
            .ok_or("no stdin")?
            .write_all(payload.to_string().as_bytes())?;
        hook.wait_with_output()?
    };
    let given = String::from_utf8_lossy(&out.stdout).into_owned();
    ensure!(
        given.contains("Run make deploy."),
        "the hook composed nothing around the bad config:\n{given}"
    );
    sandbox
        .run(
            "the_compose_preview_shows_what_a_hook_gives_around_a_config_that_does_not_load",
            |driver| async move {
                ui::open_compose(&driver).await?;
                testid(&driver, "compose-prompt")
                    .await?
                    .send_keys("how do I deploy")
                    .await?;
                text_contains(&driver, "compose-output", "Run make deploy.").await?;
                let condition =
                    text_contains(&driver, "compose-conditions", "using the defaults").await?;
                ensure!(
                    condition.contains("config.toml"),
                    "the error beside the block: {condition:?}"
                );
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_filter_that_matches_nothing_says_so_in_the_detail_pane() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("deploy-steps", "project", "How we ship", "make release\n")?;
    sandbox
        .run(
            "a_filter_that_matches_nothing_says_so_in_the_detail_pane",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                // No agent is connected: with nothing selected, the pane shows Getting started.
                testid(&driver, "first-run").await?;
                ui::fill(&testid(&driver, "memory-filter").await?, "zebra").await?;
                let pane = text_contains(&driver, "detail-no-match", "zebra").await?;
                ensure!(
                    pane.contains("Nothing matches the filter"),
                    "the detail pane says {pane:?}"
                );
                ui::gone(&driver, ui::tid("first-run"), "Getting started to give way").await?;
                capture(&driver, "detail-no-match").await?;
                ui::click(&driver, "detail-clear-filter").await?;
                ui::rows_until(&driver, "the list back whole", |rows| {
                    rows == ["deploy-steps"]
                })
                .await?;
                let filter = testid(&driver, "memory-filter").await?;
                ensure!(
                    ui::value_of(&filter).await?.is_empty(),
                    "the filter is not cleared"
                );
                ui::gone(
                    &driver,
                    ui::tid("detail-no-match"),
                    "the no-match panel to go",
                )
                .await?;
                Ok(())
            },
        )
        .await
}
