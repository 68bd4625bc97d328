//! Search relevance a person can read, with the real embedding model: a query unrelated to
//! every memory shows no results (not a top hit at "1.00"); a related one is labelled from its
//! evidence; and when an agent saves the exact match while the search is open, the refreshed
//! list (names, labels, similarities) is the one retyping the query gives, though the memory's
//! vector lands after its file (two changes, two refreshes).

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::press_ctrl;
use crate::seed::Sandbox;
use crate::ui::{self, testid};

/// The names of the rows on screen, read in one script: the list re-renders when the disk
/// changes, so reading row by row could meet a row that was just replaced.
async fn result_names(driver: &WebDriver) -> TestResult<Vec<String>> {
    let script = "return [...document.querySelectorAll('[data-testid=\"search-result\"]')].map((r) => r.dataset.name || '');";
    Ok(driver
        .execute(script, Vec::<serde_json::Value>::new())
        .await?
        .convert()?)
}

/// One row of the overlay as a person reads it: the name, the relevance label and the
/// similarity behind it ('' without a vector).
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
struct Row {
    name: String,
    relevance: String,
    cosine: String,
}

/// What the overlay shows at one moment, read in one script: the query its rows answer, how
/// many answers it has shown so far, whether a search is running or queued, and the rows.
#[derive(Debug, Clone, serde::Deserialize)]
struct Answer {
    query: String,
    shown: u64,
    busy: bool,
    rows: Vec<Row>,
}

async fn answer(driver: &WebDriver) -> TestResult<Answer> {
    let script = r#"
        const status = document.querySelector('[data-testid="search-status"]');
        const rows = [...document.querySelectorAll('[data-testid="search-result"]')].map((r) => {
          const score = r.querySelector('[data-testid="search-result-score"]');
          return { name: r.dataset.name || '', relevance: score ? score.dataset.relevance || '' : '', cosine: score ? score.dataset.cosine || '' : '' };
        });
        return { query: status.dataset.query || '', shown: Number(status.dataset.shown || 0), busy: status.dataset.busy === 'true', rows };
    "#;
    Ok(driver
        .execute(script, Vec::<serde_json::Value>::new())
        .await?
        .convert()?)
}

/// Waits until the overlay has shown an answer after the `after`-th one, for exactly `query`,
/// with no search running or queued, and `ok` holds for it.
async fn settled_answer(
    driver: &WebDriver,
    what: &str,
    query: &str,
    after: u64,
    ok: impl Fn(&Answer) -> bool,
) -> TestResult<Answer> {
    let seen = std::sync::Mutex::new(None);
    let outcome = ui::eventually(what, || {
        let (seen, ok) = (&seen, &ok);
        async move {
            let now = answer(driver).await?;
            let done = now.shown > after && now.query == query && !now.busy && ok(&now);
            *seen.lock().unwrap() = Some(now.clone());
            Ok(done.then_some(now))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; the overlay shows {:?}", seen.lock().unwrap()).into())
}

async fn names_until(
    driver: &WebDriver,
    what: &str,
    ok: impl Fn(&[String]) -> bool,
) -> TestResult<Vec<String>> {
    let seen = std::sync::Mutex::new(Vec::new());
    let outcome = ui::eventually(what, || {
        let (seen, ok) = (&seen, &ok);
        async move {
            let now = result_names(driver).await?;
            *seen.lock().unwrap() = now.clone();
            Ok(ok(&now).then_some(now))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; the overlay shows {:?}", seen.lock().unwrap()).into())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn relevance_comes_from_evidence_and_a_save_refreshes_to_the_retyped_ranking() -> TestResult {
    let sandbox = std::sync::Arc::new(Sandbox::new()?);
    sandbox.with_models()?;
    let memories = [
        (
            "db-migrations",
            "project",
            "How schema migrations are written and rolled back",
            "Every migration has a down step.",
        ),
        (
            "commit-style",
            "feedback",
            "Commit messages in the imperative mood",
            "Write 'Add X', not 'Added X'.",
        ),
        (
            "editor-setup",
            "reference",
            "Editor settings for the monorepo",
            "Format on save; rulers at 100.",
        ),
        (
            "pet-care",
            "user",
            "Feeding the office cat",
            "The cat eats wet food twice a day.",
        ),
    ];
    for (name, kind, description, body) in memories {
        sandbox.save_user(name, kind, description, body)?;
    }
    sandbox.run_ambry(&sandbox.user_home, &["memory", "reindex"])?;
    let agent = sandbox.clone();
    sandbox
        .run("relevance_comes_from_evidence_and_a_save_refreshes_to_the_retyped_ranking", move |driver| async move {
            ui::open_user_memories(&driver).await?;
            press_ctrl(&driver, "k").await?;
            let input = testid(&driver, "search-input").await?;

            // Unrelated to every memory: nothing, said plainly.
            input.send_keys("quarterly stock market forecast").await?;
            ui::text_contains(&driver, "search-empty", "No memory matches").await?;
            let status = ui::text_contains(&driver, "search-status", "semantic").await?;
            ensure!(status.starts_with("0 results"), "status for an unrelated query: {status:?}");

            // Related in meaning, sharing one word: labelled from the evidence.
            ui::fill(&input, "what does the kitten eat").await?;
            names_until(&driver, "pet-care first", |n| n.first().is_some_and(|x| x == "pet-care")).await?;
            // The list may still show a partial query's results (typing is coalesced): wait for
            // the whole query's label rather than reading the first one shown.
            let script = "const s = document.querySelector('[data-testid=\"search-result\"] [data-testid=\"search-result-score\"]'); return s ? (s.dataset.relevance || '') : '';";
            let labelled = ui::eventually("pet-care labelled good or strong", || async {
                let relevance: String = driver.execute(script, Vec::<serde_json::Value>::new()).await?.convert()?;
                Ok((relevance == "strong" || relevance == "good").then_some(relevance))
            })
            .await;
            ensure!(labelled.is_ok(), "pet-care's relevance never reached good: {labelled:?}");
            let others = result_names(&driver).await?;
            ensure!(
                !others.iter().any(|n| n == "editor-setup" || n == "commit-style"),
                "noise kept for a cat question: {others:?}"
            );

            // An agent saves the exact match while the search is open.
            const QUERY: &str = "rotate the signing keys for release builds";
            ui::fill(&input, QUERY).await?;
            settled_answer(&driver, "the typed query's results", QUERY, 0, |_| true).await?;
            agent.run_ambry(
                &agent.user_home,
                &[
                    "memory",
                    "save",
                    "signing-keys",
                    "--type",
                    "project",
                    "--description",
                    "Rotate the signing keys for release builds",
                    "--body",
                    "Quarterly, with the vault CLI.",
                ],
            )?;
            // The save is done when the command returns: the file and then its vector are on
            // disk. The overlay is refreshed once it answers the query with the memory's
            // similarity in (the refresh after the vector's own change, or a later one).
            let refreshed = settled_answer(&driver, "the saved memory, with its vector, in the open search", QUERY, 0, |a| {
                a.rows.iter().any(|r| r.name == "signing-keys" && !r.cosine.is_empty())
            })
            .await?;

            // Retyping the same query, keystroke by keystroke, shows the very same list.
            ui::fill(&input, QUERY).await?;
            let retyped = settled_answer(&driver, "the retyped query's results", QUERY, refreshed.shown, |_| true).await?;
            ensure!(
                refreshed.rows == retyped.rows,
                "the refreshed list differs from the retyped one:\n refreshed {:?}\n retyped   {:?}",
                refreshed.rows,
                retyped.rows
            );
            ensure!(
                retyped.rows.first().is_some_and(|r| r.name == "signing-keys" && r.relevance == "strong"),
                "the exact match is not first and strong: {:?}",
                retyped.rows
            );
            Ok(())
        })
        .await
}
