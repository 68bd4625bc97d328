//! A transcript at the minimum window (720×480), by keyboard: Tab into its action bar keeps
//! the transcript's title in view, and the "Save as memory" dialog fits the window with its
//! Save and Cancel in view while its fields scroll inside it.

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{focused, press, resize};
use crate::seed::Sandbox;
use crate::ui::{self, testid, text_contains};

const TITLE: &str = "Moving the nightly deploy from the blue pool to the green pool without any downtime for billing and the reports";

/// How far (px) `selector` reaches outside the box that shows it: the nearest scrolling
/// ancestor's visible box and the window, above and below (0 when it is wholly in view).
async fn outside_view(driver: &WebDriver, selector: &str) -> TestResult<f64> {
    let out: f64 = driver
        .execute(
            r#"const el = document.querySelector(arguments[0]);
               if (!el) return 1e9;
               const r = el.getBoundingClientRect();
               let top = 0, bottom = window.innerHeight;
               for (let a = el.parentElement; a; a = a.parentElement) {
                 const s = getComputedStyle(a);
                 if (/(auto|scroll|hidden)/.test(s.overflowY)) {
                   const b = a.getBoundingClientRect();
                   top = Math.max(top, b.top); bottom = Math.min(bottom, b.bottom);
                 }
               }
               return Math.max(0, top - r.top) + Math.max(0, r.bottom - bottom);"#,
            vec![serde_json::json!(selector)],
        )
        .await?
        .convert()?;
    Ok(out)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn at_720_by_480_a_transcript_keeps_its_title_and_the_save_dialog_its_buttons_in_view(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    let cwd = sandbox.user_home.clone();
    let long =
        "The nightly deploys go through the green pool; the blue pool is drained. ".repeat(6);
    sandbox.write_session(
        "deploy-talk",
        TITLE,
        &cwd,
        &[
            ("user", "Where do the nightly deploys go now?"),
            ("assistant", long.as_str()),
            ("user", "And the billing reports?"),
            ("assistant", long.as_str()),
        ],
    )?;
    sandbox.run_ambry(&cwd, &["sessions", "index"])?;
    let memory_file = sandbox.user_memory_file("nightly-deploys-green-pool");

    sandbox
        .run(
            "at_720_by_480_a_transcript_keeps_its_title_and_the_save_dialog_its_buttons_in_view",
            move |driver| async move {
                ui::ready(&driver).await?;
                // Sessions first: below 900 px wide the sidebar folds away behind ☰.
                ui::click(&driver, "nav-sessions").await?;
                resize(&driver, 720, 480).await?;
                let q = testid(&driver, "sessions-query").await?;
                q.click().await?;
                ui::fill(&q, "blue pool drained").await?;
                ui::shown(&driver, ui::css("[data-testid=\"recall-hit\"][data-session-id=\"deploy-talk\"]"), "the hit").await?;
                press(&driver, Key::Tab).await?;
                press(&driver, Key::Enter).await?;
                text_contains(&driver, "transcript-title", "nightly deploy").await?;

                // Tab from the transcript into its action bar: the title stays in view.
                let mut reached = false;
                for _ in 0..10 {
                    press(&driver, Key::Tab).await?;
                    if focused(&driver).await?.testid == "transcript-save" {
                        reached = true;
                        break;
                    }
                }
                ensure!(reached, "Tab never reached Save as memory…");
                // The head (source badges, title, place, actions) is shown from its top.
                let head = "[data-testid=\"transcript-view\"] .detail-head";
                let hidden = ui::eventually("the title and the focused action in view", || async {
                    let title = outside_view(&driver, head).await?;
                    let action = outside_view(&driver, "[data-testid=\"transcript-save\"]").await?;
                    Ok((title < 1.0 && action < 1.0).then_some(()))
                })
                .await;
                capture(&driver, "small-transcript-actions").await?;
                ensure!(
                    hidden.is_ok(),
                    "with the action bar focused, the title's head is {} px and Save as memory… {} px out of view",
                    outside_view(&driver, head).await?,
                    outside_view(&driver, "[data-testid=\"transcript-save\"]").await?
                );

                // The dialog: Save and Cancel in view without scrolling; the fields scroll inside.
                press(&driver, Key::Enter).await?;
                ui::shown(&driver, ui::tid("passage-body"), "the passage dialog").await?;
                capture(&driver, "small-passage-dialog").await?;
                for button in ["passage-save", "passage-cancel"] {
                    let out = outside_view(&driver, &format!("[data-testid=\"{button}\"]")).await?;
                    ensure!(out < 1.0, "{button} is {out} px out of view in the dialog at 720×480");
                }
                let title_out = outside_view(&driver, "#passage-title").await?;
                ensure!(title_out < 1.0, "the dialog's title is {title_out} px out of view");
                // And it still saves.
                let name = testid(&driver, "passage-name").await?;
                ui::fill(&name, "nightly-deploys-green-pool").await?;
                testid(&driver, "passage-description").await?.send_keys("Where nightly deploys go").await?;
                ui::click(&driver, "passage-save").await?;
                ui::gone(&driver, ui::tid("passage-dialog"), "the passage dialog").await?;
                ensure!(memory_file.is_file(), "the passage was not saved as {}", memory_file.display());
                Ok(())
            },
        )
        .await
}
