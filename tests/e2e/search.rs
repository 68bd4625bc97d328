//! The search overlay: Ctrl+K opens it, typing ranks memories with the agents' ranker, ↑/↓ move
//! the highlight, Esc closes, and reopening shows the last query and its results.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, css, testid, texts_until, value_of};

async fn result_attrs(driver: &WebDriver, attr: &str) -> TestResult<Vec<String>> {
    let mut out = Vec::new();
    for row in driver
        .find_all(css("[data-testid=\"search-result\"]"))
        .await?
    {
        out.push(row.attr(attr).await?.unwrap_or_default());
    }
    Ok(out)
}

/// Waits for the overlay's results, by name, to satisfy `ok`.
async fn results_until(
    driver: &WebDriver,
    what: &str,
    ok: impl Fn(&[String]) -> bool,
) -> TestResult<Vec<String>> {
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
            let active: Vec<usize> = flags
                .iter()
                .enumerate()
                .filter(|(_, f)| *f == "true")
                .map(|(i, _)| i)
                .collect();
            Ok((active == [expected]).then_some(()))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; data-active flags {:?}", seen.lock().unwrap()).into())
}

pub async fn press_ctrl_k(driver: &WebDriver) -> TestResult {
    driver
        .action_chain()
        .key_down(Key::Control)
        .send_keys("k")
        .key_up(Key::Control)
        .perform()
        .await?;
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
    sandbox.save_user(
        "commit-style",
        "feedback",
        "Commit messages in the imperative mood",
        "Write 'Add X', not 'Added X'.\n",
    )?;
    sandbox.save_user(
        "release-train",
        "project",
        "Releases ship every second Tuesday",
        "Cut the branch on Monday; migrations freeze then.\n",
    )?;
    sandbox.save_user(
        "editor-setup",
        "reference",
        "Editor settings for the monorepo",
        "Format on save; rulers at 100.\n",
    )?;

    sandbox
        .run(
            "ctrl_k_ranks_as_you_type_moves_with_arrows_and_remembers_the_query",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                press_ctrl_k(&driver).await?;
                let input = testid(&driver, "search-input").await?;
                input.send_keys("roll back a schema migration").await?;
                let names = results_until(&driver, "db-migrations ranked first", |names| {
                    names.first().is_some_and(|n| n == "db-migrations")
                })
                .await?;
                ensure!(
                    !names.iter().any(|n| n == "editor-setup"),
                    "an unrelated memory matched: {names:?}"
                );
                let scores = texts_until(
                    &driver,
                    css("[data-testid=\"search-result-score\"]"),
                    "scores",
                    |s| !s.is_empty(),
                )
                .await?;
                // Every word of the query is in it: labelled as such, not as a normalized 1.00.
                ensure!(
                    scores[0] == "Strong match",
                    "the top result's relevance shows {:?}",
                    scores[0]
                );

                active_index(&driver, 0).await?;
                input.send_keys(Key::Down).await?;
                active_index(&driver, 1).await?;
                input.send_keys(Key::Up).await?;
                active_index(&driver, 0).await?;
                input.send_keys(Key::Escape).await?;
                ui::gone(
                    &driver,
                    ui::tid("search-overlay"),
                    "the overlay to close on Esc",
                )
                .await?;

                press_ctrl_k(&driver).await?;
                let input = testid(&driver, "search-input").await?;
                let query = value_of(&input).await?;
                ensure!(
                    query == "roll back a schema migration",
                    "reopened with query {query:?}"
                );
                results_until(&driver, "the last results on reopening", |names| {
                    names.first().is_some_and(|n| n == "db-migrations")
                })
                .await?;

                // A new query refills the rows on screen (typing does not rebuild them): the
                // same elements, each showing its new memory whole.
                driver
                    .execute(
                        r#"document.querySelectorAll('[data-testid="search-result"]').forEach((r) => { r.__kept = true; });"#,
                        vec![],
                    )
                    .await?;
                ui::fill(&input, "commit messages imperative").await?;
                results_until(&driver, "commit-style ranked first", |names| {
                    names.first().is_some_and(|n| n == "commit-style")
                })
                .await?;
                let first: Vec<String> = driver
                    .execute(
                        r#"const rows = [...document.querySelectorAll('[data-testid="search-result"]')];
                           const r = rows[0];
                           return [String(rows.every((x) => x.__kept === true)), r.querySelector('.result-name').textContent,
                                   r.querySelector('.result-description').textContent, r.querySelector('.badge-type').textContent,
                                   r.querySelector('[data-testid="search-result-score"]').dataset.relevance,
                                   r.querySelector('.relevance-label').textContent,
                                   String(r.querySelectorAll('.relevance-bars > .on').length)];"#,
                        vec![],
                    )
                    .await?
                    .convert()?;
                ensure!(first[0] == "true", "the rows were rebuilt, not refilled");
                ensure!(
                    first[1..4] == ["commit-style", "Commit messages in the imperative mood", "feedback"],
                    "the refilled top row shows {first:?}"
                );
                // Its relevance widget shows its own relevance: label and bars agree.
                let (label, bars) = match first[4].as_str() {
                    "strong" => ("Strong match", "3"),
                    "good" => ("Good match", "2"),
                    _ => ("Weak match", "1"),
                };
                ensure!(first[5] == label && first[6] == bars, "the refilled relevance shows {first:?}");
                Ok(())
            },
        )
        .await
}

/// `(name, project slug)` of each result row, in order.
async fn results_with_projects(driver: &WebDriver) -> TestResult<Vec<(String, String)>> {
    let names = result_attrs(driver, "data-name").await?;
    let projects = result_attrs(driver, "data-project").await?;
    Ok(names.into_iter().zip(projects).collect())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_overlay_searches_every_project_narrows_on_request_and_follows_the_disk() -> TestResult
{
    let sandbox = std::sync::Arc::new(Sandbox::new()?);
    let ledger = sandbox.add_project("ledger")?;
    let shop = sandbox.add_project("shop")?;
    sandbox.save_user(
        "commit-style",
        "feedback",
        "Commit messages in the imperative mood",
        "Write 'Add X', not 'Added X'.\n",
    )?;
    sandbox.save_project(
        &ledger,
        "invoice-rounding",
        "project",
        "Invoices round half to even",
        "Use decimal, never float.\n",
    )?;
    sandbox.save_project(
        &shop,
        "invoice-emails",
        "project",
        "Invoice emails go out at 06:00 UTC",
        "The mailer batches invoices per tenant.\n",
    )?;
    // The same name in the user scope and a project: both are found, neither hides the other.
    sandbox.save_user(
        "deploy-steps",
        "project",
        "How deploys are run by hand",
        "ssh in, pull, restart the invoice worker.\n",
    )?;
    sandbox.save_project(
        &shop,
        "deploy-steps",
        "project",
        "Shop deploys go through the pipeline",
        "Never deploy the invoice mailer by hand.\n",
    )?;
    let (ledger_slug, shop_slug) = (ledger.slug.clone(), shop.slug.clone());
    let cli = sandbox.clone();

    sandbox
        .run(
            "the_overlay_searches_every_project_narrows_on_request_and_follows_the_disk",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                press_ctrl_k(&driver).await?;
                testid(&driver, "search-input")
                    .await?
                    .send_keys("invoice")
                    .await?;
                let seen = std::sync::Mutex::new(Vec::new());
                let everything = ui::eventually("results from both projects and the user", || {
                    let seen = &seen;
                    let driver = driver.clone();
                    async move {
                        let rows = results_with_projects(&driver).await?;
                        *seen.lock().unwrap() = rows.clone();
                        Ok((rows.len() == 4).then_some(rows))
                    }
                })
                .await
                .map_err(|e| format!("{e}; the overlay lists {:?}", seen.lock().unwrap()))?;
                for expected in [
                    ("invoice-rounding".to_string(), ledger_slug.clone()),
                    ("invoice-emails".to_string(), shop_slug.clone()),
                    ("deploy-steps".to_string(), shop_slug.clone()),
                    ("deploy-steps".to_string(), String::new()),
                ] {
                    ensure!(
                        everything.contains(&expected),
                        "{expected:?} missing from the all-memories search: {everything:?}"
                    );
                }
                let picked = value_of(&testid(&driver, "search-project").await?).await?;
                ensure!(
                    picked == "*",
                    "the overlay starts on {picked:?}, not All memories (\"*\")"
                );

                // Narrowed to one project as its agent sees it: the other project is gone and the
                // project's deploy-steps hides the user's.
                ui::click_on(
                    &driver,
                    css(&format!(
                        "[data-testid=\"search-project\"] option[value=\"{shop_slug}\"]"
                    )),
                    "the shop project in the picker",
                )
                .await?;
                results_until(&driver, "only the shop project and the user", |names| {
                    names.len() == 2 && names.contains(&"invoice-emails".to_string())
                })
                .await?;
                let rows = results_with_projects(&driver).await?;
                ensure!(
                    rows.contains(&("deploy-steps".to_string(), shop_slug.clone())),
                    "shop view: {rows:?}"
                );

                // A memory an agent saves while the results are on screen joins them.
                cli.run_ambry(
                    &shop.root,
                    &[
                        "memory",
                        "save",
                        "invoice-retries",
                        "--type",
                        "project",
                        "--description",
                        "Failed invoice emails retry hourly",
                        "--body",
                        "Three tries, then page.",
                    ],
                )?;
                results_until(
                    &driver,
                    "the memory saved on disk to join the results",
                    |names| names.contains(&"invoice-retries".to_string()),
                )
                .await?;
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn enter_opens_the_top_result_in_the_persons_editor_and_the_query_survives() -> TestResult {
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
    // $VISUAL is a stand-in editor that records what it was asked to open.
    let opened = sandbox.user_home.join("opened.txt");
    let editor = sandbox.user_home.join("fake-editor");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n",
            opened.display()
        ),
    )?;
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let file = sandbox.user_memory_file("db-migrations");

    sandbox
        .run_with_env(
            "enter_opens_the_top_result_in_the_persons_editor_and_the_query_survives",
            &[("VISUAL", &editor)],
            move |driver| async move {
                ui::open_user_memories(&driver).await?;
                press_ctrl_k(&driver).await?;
                let input = testid(&driver, "search-input").await?;
                input.send_keys("roll back a migration").await?;
                results_until(&driver, "db-migrations ranked first", |names| {
                    names.first().is_some_and(|n| n == "db-migrations")
                })
                .await?;
                input.send_keys(Key::Enter).await?;
                let seen = ui::eventually("the editor to be started on the memory's file", || {
                    let opened = opened.clone();
                    async move {
                        Ok(std::fs::read_to_string(&opened)
                            .ok()
                            .filter(|s| !s.is_empty()))
                    }
                })
                .await?;
                ensure!(
                    seen.lines().collect::<Vec<_>>() == [file.display().to_string()],
                    "the editor was asked to open {seen:?}, not {}",
                    file.display()
                );
                // Back from the editor, the search is where it was left: same query, same results.
                let input = testid(&driver, "search-input").await?;
                ensure!(
                    value_of(&input).await? == "roll back a migration",
                    "the query did not survive the trip to the editor"
                );
                results_until(&driver, "the results still shown", |names| {
                    names.first().is_some_and(|n| n == "db-migrations")
                })
                .await?;
                Ok(())
            },
        )
        .await
}
