//! Changes another process makes on disk show up without a reload: a memory the `ambry` CLI
//! saves appears in the open list, one it forgets disappears, and one it rewrites updates the
//! open detail pane.

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, open_memory, rows_until, text_contains};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn memories_the_cli_saves_and_forgets_appear_and_disappear_live() -> TestResult {
    let sandbox = std::sync::Arc::new(Sandbox::new()?);
    sandbox.save_user(
        "go-errors",
        "feedback",
        "Wrap errors with %w",
        "Use fmt.Errorf with %w.\n",
    )?;
    sandbox.save_user(
        "nightly-backups",
        "project",
        "Backups run at 02:00 UTC",
        "Restore drills monthly.\n",
    )?;
    // Make sure the binary is there before the window opens (a clear error otherwise).
    sandbox.ambry(&sandbox.user_home)?;
    let cli = sandbox.clone();
    sandbox
        .run(
            "memories_the_cli_saves_and_forgets_appear_and_disappear_live",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                rows_until(&driver, "the seeded memories", |rows| {
                    rows == ["go-errors", "nightly-backups"]
                })
                .await?;
                open_memory(&driver, "go-errors").await?;

                let cwd = cli.user_home.clone();
                cli.run_ambry(
                    &cwd,
                    &[
                        "memory",
                        "save",
                        "api-pagination",
                        "--type",
                        "project",
                        "--description",
                        "Cursor pagination for list endpoints",
                        "--body",
                        "Never offset pagination.",
                    ],
                )?;
                rows_until(&driver, "api-pagination to appear", |rows| {
                    rows.iter().any(|r| r == "api-pagination")
                })
                .await?;

                // The open memory is rewritten behind the app's back: the pane follows.
                cli.run_ambry(
                    &cwd,
                    &[
                        "memory",
                        "save",
                        "go-errors",
                        "--type",
                        "feedback",
                        "--description",
                        "Wrap errors with %w and context",
                        "--body",
                        "Use fmt.Errorf(\"doing x: %w\", err).",
                    ],
                )?;
                text_contains(
                    &driver,
                    "detail-description",
                    "Wrap errors with %w and context",
                )
                .await?;

                cli.run_ambry(
                    &cwd,
                    &["memory", "forget", "nightly-backups", "--scope", "user"],
                )?;
                rows_until(&driver, "nightly-backups to disappear", |rows| {
                    rows == ["go-errors", "api-pagination"]
                })
                .await?;
                Ok(())
            },
        )
        .await
}
