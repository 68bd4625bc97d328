//! The search overlay: Ctrl+K opens it, typing ranks memories with the agents' ranker, ↑/↓ move
//! the highlight, Esc closes, and reopening shows the last query and its results.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, css, testid, texts_until, value_of};

async fn result_attrs(driver: &WebDriver, attr: &str) -> TestResult<Vec<String>> {
    let mut out = Vec::new();
    for row in driver.find_all(css("[data-testid=\"search-result\"]")).await? {
        out.push(row.attr(attr).await?.unwrap_or_default());
    }
    Ok(out)
}

/// Waits for the overlay's results, by name, to satisfy `ok`.
async fn results_until(driver: &WebDriver, what: &str, ok: impl Fn(&[String]) -> bool) -> TestResult<Vec<String>> {
    let seen = std::sync::Mutex::new(Vec::new());
    let outcome = ui::eventually(what, || {
        let (seen, ok) = (&seen, &ok);
        async move {
            let names = result_attrs(driver, "data-name").await?;
            *seen.lock().unwrap() = names.clone();
            Ok(ok(&names).then_some(names))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; the overlay lists {:?}", seen.lock().unwrap()).into())
}

/// Which result row (by index) is highlighted, once exactly one is.
async fn active_index(driver: &WebDriver, expected: usize) -> TestResult {
    let seen = std::sync::Mutex::new(Vec::new());
    let outcome = ui::eventually(&format!("result {expected} to be highlighted"), || {
        let seen = &seen;
        async move {
            let flags = result_attrs(driver, "data-active").await?;
            *seen.lock().unwrap() = flags.clone();
            let active: Vec<usize> = flags.iter().enumerate().filter(|(_, f)| *f == "true").map(|(i, _)| i).collect();
            Ok((active == [expected]).then_some(()))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; data-active flags {:?}", seen.lock().unwrap()).into())
}

pub async fn press_ctrl_k(driver: &WebDriver) -> TestResult {
    driver.action_chain().key_down(Key::Control).send_keys("k").key_up(Key::Control).perform().await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn ctrl_k_ranks_as_you_type_moves_with_arrows_and_remembers_the_query() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "db-migrations",
        "project",
        "How schema migrations are written and rolled back",
        "Every migration has a down step. Roll back with `make migrate-down` before editing one.\n",
    )?;
    sandbox.save_user("commit-style", "feedback", "Commit messages in the imperative mood", "Write 'Add X', not 'Added X'.\n")?;
    sandbox.save_user("release-train", "project", "Releases ship every second Tuesday", "Cut the branch on Monday; migrations freeze then.\n")?;
    sandbox.save_user("editor-setup", "reference", "Editor settings for the monorepo", "Format on save; rulers at 100.\n")?;

    sandbox
        .run("ctrl_k_ranks_as_you_type_moves_with_arrows_and_remembers_the_query", |driver| async move {
            ui::open_user_memories(&driver).await?;
            press_ctrl_k(&driver).await?;
            let input = testid(&driver, "search-input").await?;
            input.send_keys("roll back a schema migration").await?;
            let names = results_until(&driver, "db-migrations ranked first", |names| names.first().is_some_and(|n| n == "db-migrations")).await?;
            ensure!(!names.iter().any(|n| n == "editor-setup"), "an unrelated memory matched: {names:?}");
            let scores = texts_until(&driver, css("[data-testid=\"search-result-score\"]"), "scores", |s| !s.is_empty()).await?;
            ensure!(scores[0] == "1.00", "the top score is normalized to 1.00, shows {:?}", scores[0]);

            active_index(&driver, 0).await?;
            input.send_keys(Key::Down).await?;
            active_index(&driver, 1).await?;
            input.send_keys(Key::Up).await?;
            active_index(&driver, 0).await?;
            input.send_keys(Key::Escape).await?;
            ui::gone(&driver, ui::tid("search-overlay"), "the overlay to close on Esc").await?;

            press_ctrl_k(&driver).await?;
            let input = testid(&driver, "search-input").await?;
            let query = value_of(&input).await?;
            ensure!(query == "roll back a schema migration", "reopened with query {query:?}");
            results_until(&driver, "the last results on reopening", |names| names.first().is_some_and(|n| n == "db-migrations")).await?;
            Ok(())
        })
        .await
}
