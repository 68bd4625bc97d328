//! Reindex from the sidebar: progress shows while it runs and ends with a result summary; the
//! vectors land on disk, a second run finds them up to date, and without the model the result
//! says what is missing while the app keeps working.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, click, rows_until};

/// Records every state the reindex controls go through (a MutationObserver), so a progress
/// state that lasts a few milliseconds is still seen.
async fn record_reindex_states(driver: &WebDriver) -> TestResult {
    driver
        .execute(
            r#"
            const progress = document.querySelector('[data-testid="reindex-progress"]');
            const status = document.querySelector('[data-testid="reindex-status"]');
            window.__reindexStates = [];
            const note = () => window.__reindexStates.push({ running: !progress.hidden, status: status.textContent });
            new MutationObserver(note).observe(progress, { attributes: true });
            new MutationObserver(note).observe(status, { childList: true, characterData: true, subtree: true });
            "#,
            Vec::<serde_json::Value>::new(),
        )
        .await?;
    Ok(())
}

#[derive(serde::Deserialize, Debug)]
struct State {
    running: bool,
    status: String,
}

async fn recorded_states(driver: &WebDriver) -> TestResult<Vec<State>> {
    Ok(driver
        .execute(
            "return window.__reindexStates;",
            Vec::<serde_json::Value>::new(),
        )
        .await?
        .convert()?)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn reindex_shows_progress_then_a_summary_and_writes_vectors() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.with_models()?;
    let ledger = sandbox.add_project("ledger")?;
    sandbox.save_user(
        "cat-care",
        "reference",
        "Feeding the kitten",
        "Wet food twice a day.\n",
    )?;
    sandbox.save_user(
        "db-migrations",
        "project",
        "How schema changes ship",
        "Run migrations before deploy.\n",
    )?;
    sandbox.save_project(
        &ledger,
        "invoice-rounding",
        "project",
        "Invoices round half to even",
        "Use decimal, never float.\n",
    )?;
    let vectors = [
        sandbox.user_memory_file("cat-care").with_extension("vec"),
        sandbox
            .user_memory_file("db-migrations")
            .with_extension("vec"),
        sandbox
            .project_memory_file(&ledger, "invoice-rounding")
            .with_extension("vec"),
    ];
    // The store saved plain files: no vector yet.
    ensure!(
        vectors.iter().all(|v| !v.exists()),
        "vectors exist before any reindex: {vectors:?}"
    );

    sandbox
        .run(
            "reindex_shows_progress_then_a_summary_and_writes_vectors",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                record_reindex_states(&driver).await?;
                click(&driver, "reindex-button").await?;
                let summary = ui::reindex_result(&driver).await?;
                ensure!(
                    summary.lines().next() == Some("Memories: 3 of 3 newly searchable by meaning"),
                    "first reindex summary: {summary:?}"
                );
                let states = recorded_states(&driver).await?;
                let progressed = states.iter().position(|s| s.running);
                let finished = states
                    .iter()
                    .rposition(|s| !s.running && s.status.trim() == summary.trim());
                ensure!(
                    matches!((progressed, finished), (Some(p), Some(f)) if p < f),
                    "expected progress before the summary; the controls went through {states:?}"
                );
                for v in &vectors {
                    ensure!(v.is_file(), "reindex wrote no vector at {}", v.display());
                }

                record_reindex_states(&driver).await?;
                click(&driver, "reindex-button").await?;
                let again = ui::eventually("the second reindex summary", || {
                    let driver = driver.clone();
                    async move {
                        let text = driver.find(ui::tid("reindex-status")).await?.text().await?;
                        let states = recorded_states(&driver).await?;
                        Ok(
                            (states.iter().any(|s| s.running) && text.contains("all 3 searchable"))
                                .then_some(text),
                        )
                    }
                })
                .await?;
                ensure!(
                    again.lines().next() == Some("Memories: all 3 searchable by meaning"),
                    "second reindex summary: {again:?}"
                );
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn without_the_model_search_falls_back_to_bm25_and_says_so() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "cat-care",
        "reference",
        "Feeding the kitten",
        "Wet food twice a day.\n",
    )?;
    sandbox.save_user(
        "db-migrations",
        "project",
        "How schema changes ship",
        "Run migrations before deploy.\n",
    )?;
    sandbox
        .run(
            "without_the_model_search_falls_back_to_bm25_and_says_so",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                rows_until(&driver, "the memory list", |rows| {
                    rows == ["db-migrations", "cat-care"]
                })
                .await?;
                crate::search::press_ctrl_k(&driver).await?;
                ui::testid(&driver, "search-input")
                    .await?
                    .send_keys("kitten food")
                    .await?;
                let status = ui::text_contains(&driver, "search-status", "bm25").await?;
                ensure!(status.starts_with("1 result"), "search status: {status:?}");
                ui::shown(
                    &driver,
                    ui::css("[data-testid=\"search-result\"][data-name=\"cat-care\"]"),
                    "cat-care found by bm25",
                )
                .await?;
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn without_the_model_reindex_ends_and_says_the_embeddings_were_skipped() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "cat-care",
        "reference",
        "Feeding the kitten",
        "Wet food twice a day.\n",
    )?;
    sandbox
        .run(
            "without_the_model_reindex_ends_and_says_the_embeddings_were_skipped",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                click(&driver, "reindex-button").await?;
                let summary = ui::reindex_result(&driver).await?;
                ensure!(
                    summary.starts_with("Search by meaning unavailable"),
                    "reindex summary without the model: {summary:?}"
                );
                ensure!(
                    summary.contains("Sessions:"),
                    "the session index still ran: {summary:?}"
                );
                // The controls are usable again: a second run can start.
                ensure!(
                    driver
                        .find(ui::tid("reindex-button"))
                        .await?
                        .is_enabled()
                        .await?,
                    "Reindex stays disabled after the run"
                );
                Ok(())
            },
        )
        .await
}
