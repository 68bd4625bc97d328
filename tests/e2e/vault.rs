//! The session vault in the app: a session whose transcript file was deleted (before the app
//! started, or while it runs) is still found by recall in the Sessions view, opens as its
//! indexed turns, and is marked with when its file disappeared; once pruned
//! (`ambry sessions prune --source-removed`) it is gone, and the sessions whose files exist
//! are untouched.

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::resize;
use crate::seed::Sandbox;
use crate::ui::{self, click, click_on, css, testid, text_contains};

/// `(session id, marked as deleted)` of each recall hit, in order.
async fn hits(driver: &WebDriver) -> TestResult<Vec<(String, bool)>> {
    let mut out = Vec::new();
    for hit in driver.find_all(ui::tid("recall-hit")).await? {
        let id = hit.attr("data-session-id").await?.unwrap_or_default();
        let marked = !hit.find_all(ui::tid("vault-marker")).await?.is_empty();
        out.push((id, marked));
    }
    Ok(out)
}

async fn search_until(
    driver: &WebDriver,
    query: &str,
    what: &str,
    ok: impl Fn(&[(String, bool)]) -> bool,
) -> TestResult<Vec<(String, bool)>> {
    ui::fill(&testid(driver, "sessions-query").await?, query).await?;
    let seen = std::sync::Mutex::new(Vec::new());
    let outcome = ui::eventually(what, || {
        let (seen, ok) = (&seen, &ok);
        async move {
            let found = hits(driver).await?;
            *seen.lock().unwrap() = found.clone();
            Ok(ok(&found).then_some(found))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; the list shows {:?}", seen.lock().unwrap()).into())
}

async fn shoot(driver: &WebDriver, label: &str) -> TestResult {
    if std::env::var("AMBRY_E2E_SCREENSHOTS").is_ok_and(|v| v == "all") {
        let theme = if std::env::var("GTK_THEME").is_ok_and(|t| t.contains("dark")) {
            "-dark"
        } else {
            ""
        };
        capture(driver, &format!("{label}{theme}")).await?;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_deleted_transcript_is_found_opened_and_marked_until_pruned() -> TestResult {
    let sandbox = Sandbox::new()?;
    let cwd = sandbox.user_home.clone();
    let redis = sandbox.write_session(
        "redis-decision",
        "Dropping the Redis cache",
        &cwd,
        &[
            (
                "user",
                "Should we drop the Redis cache in front of the catalog?",
            ),
            (
                "assistant",
                "Yes: invalidation is racy and the materialized view is fast enough.",
            ),
        ],
    )?;
    let kitten = sandbox.write_session(
        "kitten-food",
        "Feeding the kitten",
        &cwd,
        &[
            ("user", "What should the kitten eat?"),
            ("assistant", "Wet food twice a day."),
        ],
    )?;
    sandbox.write_session(
        "release-notes",
        "Writing release notes",
        &cwd,
        &[
            ("user", "Draft the release notes for version 2.4."),
            ("assistant", "Here is a draft grouped by feature."),
        ],
    )?;
    // Indexed, then deleted before the app starts (as Claude Code's clean-up would).
    sandbox.run_ambry(&cwd, &["sessions", "index"])?;
    std::fs::remove_file(&redis)?;
    let cli = sandbox.ambry(&cwd)?;

    sandbox
        .run(
            "a_deleted_transcript_is_found_opened_and_marked_until_pruned",
            move |driver| async move {
                ui::ready(&driver).await?;
                resize(&driver, 1280, 800).await?;
                click(&driver, "nav-sessions").await?;
                testid(&driver, "sessions-view").await?;

                let found = search_until(
                    &driver,
                    "Redis cache",
                    "the deleted session to be found, marked",
                    |h| {
                        h.first()
                            .is_some_and(|(id, marked)| id == "redis-decision" && *marked)
                    },
                )
                .await?;
                ensure!(found.len() == 1, "one hit expected: {found:?}");
                let marker = driver
                    .find(css(
                        "[data-testid=\"recall-hit\"] [data-testid=\"vault-marker\"]",
                    ))
                    .await?;
                let removed_at = marker.attr("data-removed-at").await?.unwrap_or_default();
                ensure!(
                    removed_at.ends_with('Z') && removed_at.len() == 20,
                    "when the file disappeared: {removed_at:?}"
                );

                // It opens from the index, marked in the header, with its turns.
                click_on(
                    &driver,
                    css("[data-testid=\"recall-hit\"][data-session-id=\"redis-decision\"]"),
                    "the deleted session's hit",
                )
                .await?;
                text_contains(&driver, "transcript-title", "Dropping the Redis cache").await?;
                text_contains(&driver, "transcript-vaulted", "deleted").await?;
                testid(&driver, "transcript-view")
                    .await?
                    .find(ui::tid("vault-marker"))
                    .await?;
                let turns = driver.find_all(ui::tid("transcript-turn")).await?;
                ensure!(
                    turns.len() == 2,
                    "the transcript shows {} turns",
                    turns.len()
                );
                ensure!(
                    turns[1].text().await?.contains("materialized view"),
                    "the agent's answer is missing"
                );
                shoot(&driver, "vault-transcript").await?;
                resize(&driver, 800, 600).await?;
                shoot(&driver, "vault-transcript-800").await?;
                resize(&driver, 1280, 800).await?;

                // Deleted while the app runs: the watcher keeps it, and the open results mark it.
                search_until(&driver, "kitten", "the kitten session", |h| {
                    h.len() == 1 && !h[0].1
                })
                .await?;
                std::fs::remove_file(&kitten)?;
                search_until(
                    &driver,
                    "kitten",
                    "the kitten session to be marked once its file is gone",
                    |h| h.len() == 1 && h[0].0 == "kitten-food" && h[0].1,
                )
                .await?;

                // Pruned: gone from recall; the session whose file exists stays.
                let mut prune = cli;
                let out = prune
                    .args(["sessions", "prune", "--source-removed", "--json"])
                    .output()?;
                ensure!(
                    out.status.success(),
                    "prune failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
                ensure!(
                    report["removed"].as_array().map(|r| r.len()) == Some(2),
                    "prune removed {report}"
                );
                ui::fill(&testid(&driver, "sessions-query").await?, "Redis cache").await?;
                text_contains(&driver, "sessions-empty", "No match").await?;
                ui::fill(&testid(&driver, "sessions-query").await?, "kitten").await?;
                text_contains(&driver, "sessions-empty", "No match").await?;
                search_until(
                    &driver,
                    "release notes",
                    "the session whose file exists",
                    |h| h.len() == 1 && h[0].0 == "release-notes" && !h[0].1,
                )
                .await?;
                Ok(())
            },
        )
        .await
}
