//! First run as a new person meets it: one line says what the app is for, the panel stays while
//! no agent is connected (even once a memory exists), and *Index past sessions* says how many
//! sessions are searchable when the background indexer already read them (not "0 new"), in
//! plain words, with the way to Sessions.

use crate::harness::{capture, TestResult};
use crate::keys::resize;
use crate::seed::Sandbox;
use crate::ui::{self, click, testid, text_contains};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn first_run_says_what_the_app_is_for_and_what_indexing_found() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("coffee", "user", "How I take my coffee", "Black, no sugar.")?;
    // A project is already known: the panel does not offer to add one.
    sandbox.add_project("ledger")?;
    sandbox.write_session(
        "first-session",
        "Setting up the repository",
        &sandbox.user_home,
        &[("user", "Set up the repository."), ("assistant", "Done.")],
    )?;
    // Already indexed, as the app's own watcher would have done by the time a person clicks.
    sandbox.run_ambry(&sandbox.user_home, &["sessions", "index"])?;
    sandbox
        .run(
            "first_run_says_what_the_app_is_for_and_what_indexing_found",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                resize(&driver, 1280, 800).await?;
                // A memory exists, no agent is connected: the panel stays.
                text_contains(&driver, "first-run-lead", "coding agents").await?;
                ui::gone(
                    &driver,
                    ui::tid("first-run-add-project"),
                    "the offer to add a project, with one known",
                )
                .await?;
                click(&driver, "first-run-reindex").await?;
                let said =
                    text_contains(&driver, "first-run-sessions-result", "searchable").await?;
                ensure!(
                    said.contains("1 past session is searchable") && said.contains("already read"),
                    "the first run says {said:?}"
                );
                let status = ui::reindex_result(&driver).await?;
                ensure!(
                    !status.contains("Embeddings") && !status.contains("0 new"),
                    "jargon in {status:?}"
                );
                capture(&driver, "first-run-indexed").await?;
                click(&driver, "first-run-open-sessions").await?;
                testid(&driver, "sessions-view").await?;
                ui::shown(
                    &driver,
                    ui::css("[data-testid=\"session-row\"][data-session-id=\"first-session\"]"),
                    "the session in the list",
                )
                .await?;
                Ok(())
            },
        )
        .await
}
