//! Browsing both scopes: the user's memories and a registered project's memories each list
//! only their own, grouped by type, and a selected memory shows its content.

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, open_memory, rows_until, testid, text_contains, texts_until};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn user_and_project_memories_are_browsed_separately() -> TestResult {
    let sandbox = Sandbox::new()?;
    let ledger = sandbox.add_project("ledger")?;
    sandbox.save_user(
        "commit-style",
        "feedback",
        "Commit messages in the imperative mood",
        "Write **Add X**, not *Added X*.\n",
    )?;
    sandbox.save_user(
        "editor-setup",
        "reference",
        "Editor settings for every repository",
        "Format on save.\n",
    )?;
    sandbox.save_user(
        "prefers-short-answers",
        "user",
        "Keep answers short",
        "Two paragraphs at most.\n",
    )?;
    sandbox.save_project(
        &ledger,
        "invoice-rounding",
        "project",
        "Invoices round half to even",
        "Use `Decimal`, never float.\n",
    )?;
    sandbox.save_project(
        &ledger,
        "ledger-schema",
        "reference",
        "Where the ledger tables are documented",
        "See docs/schema.md.\n",
    )?;
    let slug = ledger.slug.clone();

    sandbox
        .run(
            "user_and_project_memories_are_browsed_separately",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                // Conventional types come in the order user, feedback, project, reference.
                rows_until(&driver, "the user memories, grouped by type", |rows| {
                    rows == ["prefers-short-answers", "commit-style", "editor-setup"]
                })
                .await?;
                let groups = texts_until(&driver, ui::tid("memory-group"), "type groups", |g| {
                    g.len() == 3
                })
                .await?;
                ensure!(
                    groups
                        .iter()
                        .zip(["user", "feedback", "reference"])
                        .all(|(g, t)| g.to_lowercase().starts_with(t) && g.ends_with('1')),
                    "groups are {groups:?}"
                );
                text_contains(&driver, "memories-count", "3 memories").await?;
                // The list shows only the rows in view, so each tells a screen reader where it
                // stands among how many (group headers are not counted).
                let positions = driver
                    .execute(
                        r#"return [...document.querySelectorAll('[data-testid="memory-row"]')]
                             .map((r) => `${r.getAttribute('aria-posinset')}/${r.getAttribute('aria-setsize')}`);"#,
                        vec![],
                    )
                    .await?;
                let positions: Vec<String> = serde_json::from_value(positions.json().clone())?;
                ensure!(
                    positions == ["1/3", "2/3", "3/3"],
                    "rows' aria-posinset/aria-setsize are {positions:?}"
                );
                open_memory(&driver, "commit-style").await?;
                text_contains(
                    &driver,
                    "detail-description",
                    "Commit messages in the imperative mood",
                )
                .await?;
                text_contains(&driver, "detail-scope", "user").await?;
                // Markdown is rendered, not shown raw.
                let strong = testid(&driver, "detail-body")
                    .await?
                    .find(thirtyfour::By::Css("strong"))
                    .await?
                    .text()
                    .await?;
                ensure!(
                    strong == "Add X",
                    "the body's **Add X** rendered as {strong:?}"
                );

                ui::open_project(&driver, &slug).await?;
                text_contains(&driver, "memories-title", "ledger").await?;
                rows_until(&driver, "the project's memories only", |rows| {
                    rows == ["invoice-rounding", "ledger-schema"]
                })
                .await?;
                let scopes = ui::texts(
                    &driver,
                    ui::css("[data-testid=\"memory-row\"][data-scope=\"user\"]"),
                )
                .await?;
                ensure!(
                    scopes.is_empty(),
                    "user memories leak into the project list: {scopes:?}"
                );
                open_memory(&driver, "invoice-rounding").await?;
                // Where it applies, not a second "project" beside its type.
                let scope = text_contains(&driver, "detail-scope", "only in ledger").await?;
                ensure!(
                    !scope.contains("project"),
                    "the scope chip repeats the type: {scope:?}"
                );
                text_contains(&driver, "detail-body", "never float").await?;

                // The filter narrows the list.
                ui::fill(&testid(&driver, "memory-filter").await?, "schema").await?;
                rows_until(&driver, "the filtered list", |rows| {
                    rows == ["ledger-schema"]
                })
                .await?;
                text_contains(&driver, "memories-count", "1 of 2").await?;

                ui::open_user_memories(&driver).await?;
                rows_until(&driver, "the user memories again", |rows| {
                    rows.len() == 3 && !rows.iter().any(|r| r == "invoice-rounding")
                })
                .await?;
                Ok(())
            },
        )
        .await
}
