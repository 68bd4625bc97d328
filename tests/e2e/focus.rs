//! Focus a keyboard user can follow: Ctrl+Enter in search lands in the memory list, Ctrl+S in
//! the edit form lands on the saved memory's Edit, and the Sessions list starts a new query at
//! its top hit (Tab, Enter opens it, not the session read before); a transcript without tool
//! calls is a Tab stop with a visible ring.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{focused, press, press_ctrl};
use crate::search::press_ctrl_k;
use crate::seed::Sandbox;
use crate::ui::{self, testid};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn ctrl_enter_from_search_and_ctrl_s_leave_focus_somewhere_useful() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "db-migrations",
        "project",
        "How schema migrations are rolled back",
        "Every migration has a down step.\n",
    )?;
    sandbox.save_user(
        "commit-style",
        "feedback",
        "Commit messages in the imperative mood",
        "Write 'Add X'.\n",
    )?;
    sandbox
        .run("ctrl_enter_from_search_and_ctrl_s_leave_focus_somewhere_useful", |driver| async move {
            ui::open_user_memories(&driver).await?;
            press_ctrl_k(&driver).await?;
            let input = testid(&driver, "search-input").await?;
            input.send_keys("roll back a migration").await?;
            ui::shown(&driver, ui::css("[data-testid=\"search-result\"][data-name=\"db-migrations\"]"), "the hit").await?;
            driver.action_chain().key_down(Key::Control).send_keys(Key::Enter).key_up(Key::Control).perform().await?;
            ui::shown(&driver, ui::css("[data-testid=\"memory-row\"][data-name=\"db-migrations\"][data-selected=\"true\"]"), "the memory shown in the app").await?;
            let after_search = ui::eventually("focus to land in the memory view", || async {
                let f = focused(&driver).await?;
                Ok((f.tag != "BODY").then_some(f))
            })
            .await?;
            ensure!(after_search.within("memories-view") || after_search.testid == "memory-list", "after Ctrl+Enter focus is on {after_search:?}");

            ui::click(&driver, "detail-edit").await?;
            let body = testid(&driver, "form-body").await?;
            body.send_keys(" Test it first.").await?;
            press_ctrl(&driver, "s").await?;
            ui::eventually("the save to finish", || async {
                Ok(driver.find_all(ui::tid("memory-form")).await?.is_empty().then_some(()))
            })
            .await?;
            let after_save = ui::eventually("focus after Ctrl+S", || async {
                let f = focused(&driver).await?;
                Ok((f.tag != "BODY").then_some(f))
            })
            .await?;
            ensure!(after_save.testid == "detail-edit", "after Ctrl+S focus is on {after_save:?}");
            ensure!(after_save.ring, "the focused Edit shows no focus ring");
            Ok(())
        })
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_new_session_query_starts_at_its_top_hit_and_a_plain_transcript_is_a_tab_stop(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    let long: Vec<(String, String)> = (0..60)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            (
                role.to_string(),
                format!(
                    "Paragraph {i} about the quarterly signing key rotation and its many steps."
                ),
            )
        })
        .collect();
    let long: Vec<(&str, &str)> = long.iter().map(|(r, t)| (r.as_str(), t.as_str())).collect();
    sandbox.write_session(
        "keys-rotation",
        "Rotating signing keys",
        &sandbox.user_home,
        &long,
    )?;
    sandbox.write_session(
        "pet-care",
        "Feeding the kitten",
        &sandbox.user_home,
        &[
            ("user", "What should the kitten eat?"),
            ("assistant", "Wet food twice a day."),
        ],
    )?;
    sandbox
        .run(
            "a_new_session_query_starts_at_its_top_hit_and_a_plain_transcript_is_a_tab_stop",
            |driver| async move {
                ui::click(&driver, "nav-sessions").await?;
                let query = testid(&driver, "sessions-query").await?;
                let title_is = |want: &'static str| {
                    let driver = driver.clone();
                    async move {
                        ui::eventually(&format!("the transcript of {want}"), || async {
                            let t = driver.find_all(ui::tid("transcript-title")).await?;
                            Ok(match t.first() {
                                Some(t) if t.text().await? == want => Some(()),
                                _ => None,
                            })
                        })
                        .await
                    }
                };
                // Read the kitten session first.
                ui::fill(&query, "kitten").await?;
                ui::shown(
                    &driver,
                    ui::css("[data-testid=\"recall-hit\"][data-session-id=\"pet-care\"]"),
                    "the kitten hit",
                )
                .await?;
                press(&driver, Key::Down).await?;
                title_is("Feeding the kitten").await?;
                // A new query: Tab, Enter opens its top hit, not the session read before.
                query.click().await?;
                ui::fill(&query, "signing rotation").await?;
                ui::eventually("only the signing hit", || async {
                    let hits = driver.find_all(ui::tid("recall-hit")).await?;
                    let first = match hits.first() {
                        Some(h) => h.attr("data-session-id").await?,
                        None => None,
                    };
                    Ok(
                        (hits.len() == 1 && first.as_deref() == Some("keys-rotation"))
                            .then_some(()),
                    )
                })
                .await?;
                query.click().await?;
                press(&driver, Key::Tab).await?;
                let f = focused(&driver).await?;
                ensure!(
                    f.testid == "sessions-list",
                    "Tab from the query went to {f:?}"
                );
                press(&driver, Key::Enter).await?;
                title_is("Rotating signing keys").await?;
                // The transcript (no tool calls) is a Tab stop.
                let mut reached = false;
                for _ in 0..6 {
                    press(&driver, Key::Tab).await?;
                    if focused(&driver).await?.testid == "transcript-view" {
                        reached = true;
                        break;
                    }
                }
                ensure!(
                    reached,
                    "Tab never reached the transcript; focus is on {:?}",
                    focused(&driver).await?
                );
                ensure!(
                    focused(&driver).await?.ring,
                    "the focused transcript shows no focus ring"
                );
                Ok(())
            },
        )
        .await
}
