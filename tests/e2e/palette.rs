//! Ctrl+K as a command palette, by keyboard: memories come in pages of 50 with *Show more*
//! (Enter on it shows the next page and keeps the place), past sessions follow them and open
//! as a transcript, and places and actions are found by their words (`>` lists only those):
//! *Connect an agent* lands on the agents card in Settings, whose health list names an agent's
//! lines by what they are about.

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{focused, press, press_ctrl, resize};
use crate::seed::Sandbox;
use crate::ui::{self, testid, text_contains};

async fn count(driver: &WebDriver, id: &str) -> TestResult<usize> {
    Ok(driver.find_all(ui::tid(id)).await?.len())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_palette_pages_memories_opens_sessions_and_runs_actions() -> TestResult {
    let sandbox = Sandbox::new()?;
    for i in 0..60 {
        sandbox.save_user(
            &format!("rollout-note-{i:02}"),
            "project",
            &format!("Rollout step {i}"),
            &format!("During a rollout, step {i} checks the canary."),
        )?;
    }
    sandbox.write_session(
        "rollout-talk",
        "Planning the canary rollout of the billing service",
        &sandbox.user_home,
        &[
            ("user", "How should the rollout of billing go?"),
            (
                "assistant",
                "A canary first, then the rest of the rollout in two waves.",
            ),
        ],
    )?;
    sandbox.run_ambry(&sandbox.user_home, &["sessions", "index"])?;
    // Claude Code is installed here (its folder exists): health lists its connection and a note.
    std::fs::create_dir_all(sandbox.user_home.join(".claude"))?;
    sandbox
        .run("the_palette_pages_memories_opens_sessions_and_runs_actions", |driver| async move {
            ui::ready(&driver).await?;
            resize(&driver, 1280, 800).await?;
            press_ctrl(&driver, "k").await?;
            let input = testid(&driver, "search-input").await?;
            input.send_keys("rollout").await?;
            ui::shown(&driver, ui::tid("search-more"), "Show more").await?;
            ensure!(count(&driver, "search-result").await? == 50, "the first page is not 50 memories");
            // ↓ to "Show more", Enter: the next page, the highlight where it was.
            for _ in 0..50 {
                press(&driver, Key::Down).await?;
            }
            ensure!(ui::palette_active(&driver).await?.0 == "search-more", "50 × ↓ did not reach Show more: {:?}", ui::palette_active(&driver).await?);
            press(&driver, Key::Enter).await?;
            ui::eventually("all 60 memories", || async {
                Ok((count(&driver, "search-result").await? == 60).then_some(()))
            })
            .await?;
            ensure!(count(&driver, "search-more").await? == 0, "Show more is offered with nothing more");
            ensure!(ui::palette_active(&driver).await?.0 == "search-result", "the highlight left the memories");
            // The session follows the memories.
            ui::shown(&driver, ui::css("[data-testid=\"palette-item\"][data-kind=\"session\"][data-key=\"rollout-talk\"]"), "the session in the palette").await?;
            capture(&driver, "palette-sessions").await?;
            for _ in 0..20 {
                if ui::palette_active(&driver).await? == ("palette-item".to_string(), "rollout-talk".to_string()) {
                    break;
                }
                press(&driver, Key::Down).await?;
            }
            ensure!(ui::palette_active(&driver).await?.1 == "rollout-talk", "↓ never reached the session: {:?}", ui::palette_active(&driver).await?);
            press(&driver, Key::Enter).await?;
            text_contains(&driver, "transcript-title", "Planning the canary rollout").await?;
            ensure!(focused(&driver).await?.testid == "transcript-view", "the transcript is not focused: {:?}", focused(&driver).await?);

            // An action by its words: Connect an agent lands on the agents card.
            press_ctrl(&driver, "k").await?;
            let input = testid(&driver, "search-input").await?;
            ui::fill(&input, "> connect").await?;
            ui::eventually("Connect an agent on top", || async {
                Ok((ui::palette_active(&driver).await?.1 == "connect").then_some(()))
            })
            .await?;
            ensure!(count(&driver, "search-result").await? == 0, "> lists memories too");
            capture(&driver, "palette-actions").await?;
            press(&driver, Key::Enter).await?;
            ui::eventually("focus in the agents card", || async {
                Ok(focused(&driver).await?.within("agents-card").then_some(()))
            })
            .await?;
            // Health names an agent's second line by what it is, not "claude code (2)".
            let labels = ui::eventually("the health checks", || async {
                let labels = ui::texts(&driver, ui::css("[data-testid=\"doctor-check\"] .check-area")).await?;
                Ok(labels.iter().any(|l| l == "claude code: note").then_some(labels))
            })
            .await?;
            ensure!(
                labels.iter().all(|l| !l.ends_with(')')),
                "numbered health labels: {labels:?}"
            );
            Ok(())
        })
        .await
}
