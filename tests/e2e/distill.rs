//! Distill from the app: an open transcript's *Distill…* button first shows the dry run (calls
//! and estimated tokens, which agent) and sends nothing until the person confirms; confirmed,
//! the person's agent (here a stand-in script speaking Claude Code's JSON result) runs once and
//! its proposal waits in the review inbox, with no memory written; in the Review view, by
//! keyboard, A accepts it into a memory naming its session.

use std::os::unix::fs::PermissionsExt;

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{focus_on, press, press_ctrl};
use crate::seed::Sandbox;
use crate::ui::{self, css, testid};

/// A short session of the person's in which they state a preference worth a memory.
pub(crate) fn write_release_session(sandbox: &Sandbox) -> TestResult {
    sandbox.write_session(
        "plan-release",
        "Release planning",
        &sandbox.user_home,
        &[
            ("user", "Keep commit messages short and imperative."),
            ("assistant", "Will do."),
        ],
    )?;
    Ok(())
}

/// Opens that session's transcript and presses its *Distill…* (the dry run's dialog opens).
pub(crate) async fn distill_the_release_session(driver: &WebDriver) -> TestResult {
    ui::open_session(driver, "plan-release", "Release planning").await?;
    ui::click(driver, "distill-session").await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn distill_shows_the_dry_run_first_and_queues_proposals_without_saving() -> TestResult {
    let sandbox = Sandbox::new()?;
    write_release_session(&sandbox)?;
    let log = sandbox.home.join("agent-calls.log");
    let script = sandbox.home.join("fake-claude");
    let answer = serde_json::json!({"proposals": [{"action": "new", "scope": "user",
        "name": "commit-style", "type": "feedback", "description": "Commit message style",
        "body": "Short and imperative.", "target": null, "source_turns": [1], "reason": "stated"}]});
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > /dev/null\necho call >> '{}'\nprintf '%s\\n' '{}'\n",
            log.display(),
            serde_json::json!({"type": "result", "is_error": false, "result": "", "structured_output": answer})
        ),
    )?;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    std::fs::write(
        sandbox.home.join("config.toml"),
        format!("[distill]\nclaude_command = \"{}\"\n", script.display()),
    )?;
    let home = sandbox.home.clone();
    sandbox
        .run(
            "distill_shows_the_dry_run_first_and_queues_proposals_without_saving",
            move |driver| async move {
                ui::ready(&driver).await?;
                distill_the_release_session(&driver).await?;
                let message =
                    ui::text_contains(&driver, "confirm-message", "1 call to claude").await?;
                ensure!(
                    message.contains("tokens"),
                    "the dry run says what it costs: {message}"
                );
                ensure!(!log.exists(), "nothing ran before the person confirmed");
                ui::click(&driver, "confirm-ok").await?;
                ui::eventually("the proposal in the inbox", || {
                    let home = home.clone();
                    async move {
                        let pending = std::fs::read_to_string(home.join("distill/proposals.json"))
                            .unwrap_or_default();
                        Ok(pending.contains("commit-style").then_some(()))
                    }
                })
                .await?;
                ensure!(
                    std::fs::read_to_string(&log)?.lines().count() == 1,
                    "one call"
                );
                ensure!(
                    !home.join("memory/commit-style.md").exists(),
                    "nothing saved before an accept"
                );

                // The proposal in the Review view, with its source turn; A accepts it.
                crate::review::open(&driver).await?;
                ui::shown(
                    &driver,
                    css("[data-testid=\"review-finding\"][data-kind=\"proposal\"]"),
                    "the proposal in Review",
                )
                .await?;
                let turn = ui::text_contains(&driver, "review-source-turn", "turn 1").await?;
                ensure!(
                    turn.contains("imperative"),
                    "the source turn is quoted: {turn}"
                );
                focus_on(&driver, "review-finding").await?;
                driver.action_chain().send_keys("a").perform().await?;
                let saved = home.join("memory/commit-style.md");
                let text = ui::eventually("the accepted memory on disk", || {
                    let saved = saved.clone();
                    async move { Ok(std::fs::read_to_string(&saved).ok()) }
                })
                .await?;
                ensure!(
                    text.contains("source:") && text.contains("plan-release"),
                    "the accepted memory names its session: {text}"
                );
                ensure!(text.contains("Short and imperative."), "its body: {text}");
                ui::text_contains(&driver, "review-count", "0 to review").await?;
                Ok(())
            },
        )
        .await
}

/// A project's sessions from the palette: `> distill` finds the project's action, which shows the
/// dry run for that project's sessions (one call) and sends nothing when the person cancels.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_projects_sessions_are_distilled_from_the_palette_after_a_dry_run() -> TestResult {
    let sandbox = Sandbox::new()?;
    let shop = sandbox.add_project("shop")?;
    sandbox.write_session(
        "shop-talk",
        "Checkout flow",
        &shop.root,
        &[
            ("user", "The checkout uses pnpm, never npm."),
            ("assistant", "Noted."),
        ],
    )?;
    sandbox.write_session(
        "elsewhere",
        "Another folder",
        &sandbox.user_home,
        &[("user", "Unrelated work."), ("assistant", "Ok.")],
    )?;
    let action = format!(
        "[data-testid=\"palette-item\"][data-kind=\"action\"][data-key=\"distill:{}\"]",
        shop.slug
    );
    let log = sandbox.home.join("agent-calls.log");
    let script = sandbox.home.join("fake-claude");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > /dev/null\necho call >> '{}'\n",
            log.display()
        ),
    )?;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    std::fs::write(
        sandbox.home.join("config.toml"),
        format!("[distill]\nclaude_command = \"{}\"\n", script.display()),
    )?;
    sandbox
        .run(
            "a_projects_sessions_are_distilled_from_the_palette_after_a_dry_run",
            move |driver| async move {
                ui::ready(&driver).await?;
                press_ctrl(&driver, "k").await?;
                let input = testid(&driver, "search-input").await?;
                ui::fill(&input, "> distill shop").await?;
                ui::shown(&driver, css(&action), "the project's Distill action").await?;
                press(&driver, Key::Enter).await?;
                let message =
                    ui::text_contains(&driver, "confirm-message", "1 call to claude").await?;
                ensure!(
                    message.contains("tokens"),
                    "the dry run says what it costs: {message}"
                );
                press(&driver, Key::Escape).await?;
                ui::gone(&driver, ui::tid("confirm-message"), "the dialog to close").await?;
                ensure!(!log.exists(), "the agent ran although the person cancelled");
                Ok(())
            },
        )
        .await
}
