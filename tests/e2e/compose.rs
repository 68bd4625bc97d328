//! Compose preview shows, for a prompt in a project, exactly the block `engram compose` prints
//! for an agent in that repository, with the relevant memory selected.

use thirtyfour::components::SelectElement;

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, testid, text_contains};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn compose_preview_shows_the_block_an_agent_gets_for_a_prompt() -> TestResult {
    let sandbox = Sandbox::new()?;
    let ledger = sandbox.add_project("ledger")?;
    sandbox.save_user("commit-style", "feedback", "Commit messages in the imperative mood", "Write 'Add X', not 'Added X'.\n")?;
    sandbox.save_project(
        &ledger,
        "token-refresh",
        "project",
        "How the auth middleware refreshes expired tokens",
        "Refresh happens in middleware/auth.go under a mutex; the cache holds one token per tenant.\n",
    )?;
    sandbox.save_project(&ledger, "invoice-rounding", "project", "Invoices round half to even", "Use decimal, never float.\n")?;
    let prompt = "fix the token refresh race in the auth middleware";
    let expected = sandbox.run_engram(&ledger.root, &["compose", "--query", prompt])?;
    ensure!(expected.contains("### token-refresh"), "the CLI itself did not select token-refresh:\n{expected}");
    let slug = ledger.slug.clone();

    sandbox
        .run("compose_preview_shows_the_block_an_agent_gets_for_a_prompt", |driver| async move {
            ui::open_compose(&driver).await?;
            let picker = testid(&driver, "compose-project").await?;
            SelectElement::new(&picker).await?.select_by_value(&slug).await?;
            testid(&driver, "compose-prompt").await?.send_keys(prompt).await?;
            text_contains(&driver, "compose-output", "### token-refresh [project]").await?;
            let block = ui::eventually("the block to match `engram compose`", || {
                let driver = driver.clone();
                let expected = expected.clone();
                async move {
                    let shown = driver.find(ui::tid("compose-output")).await?.prop("textContent").await?.unwrap_or_default();
                    Ok((shown.trim() == expected.trim()).then_some(shown))
                }
            })
            .await
            .map_err(|e| format!("{e}\n--- engram compose printed ---\n{expected}"))?;
            ensure!(block.starts_with("<engram-memory>"), "the block does not open with <engram-memory>:\n{block}");
            Ok(())
        })
        .await
}
