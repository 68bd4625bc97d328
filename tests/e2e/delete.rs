//! Deleting a memory moves it to the archive (after a confirmation), and restoring it from the
//! Archive view brings the same file back to disk and to the list.

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, click, css, open_memory, rows_until, shown, testid, text_contains};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_deleted_memory_goes_to_the_archive_and_restores_from_it() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "flaky-ci-retry",
        "feedback",
        "Retry the flaky integration job once",
        "Retry once, then file a bug.\n",
    )?;
    sandbox.save_user(
        "vendor-lockfile",
        "project",
        "Commit Cargo.lock for binaries",
        "Binaries commit their lockfile.\n",
    )?;
    let file = sandbox.user_memory_file("flaky-ci-retry");
    let original = std::fs::read_to_string(&file)?;
    let on_disk = file.clone();

    sandbox
        .run("a_deleted_memory_goes_to_the_archive_and_restores_from_it", |driver| async move {
            ui::open_user_memories(&driver).await?;
            open_memory(&driver, "flaky-ci-retry").await?;
            click(&driver, "detail-delete").await?;
            text_contains(&driver, "confirm-message", "archive").await?;
            // Cancelling keeps it.
            click(&driver, "confirm-cancel").await?;
            ui::gone(&driver, ui::tid("confirm-dialog"), "the dialog to close").await?;
            ensure!(on_disk.exists(), "cancelling the delete removed the file");
            click(&driver, "detail-delete").await?;
            click(&driver, "confirm-ok").await?;
            rows_until(&driver, "flaky-ci-retry to leave the list", |rows| {
                !rows.iter().any(|r| r == "flaky-ci-retry") && rows.iter().any(|r| r == "vendor-lockfile")
            })
            .await?;
            ui::eventually("the file to be gone from disk", || {
                let gone = !on_disk.exists();
                async move { Ok(gone.then_some(())) }
            })
            .await?;

            ui::open_archive(&driver).await?;
            // Listed as deleted: no current file, only archived versions.
            shown(
                &driver,
                css("[data-testid=\"archive-memory\"][data-name=\"flaky-ci-retry\"][data-deleted=\"true\"]"),
                "flaky-ci-retry in the archive, marked deleted",
            )
            .await?;
            ui::click_on(&driver, css("[data-testid=\"archive-version\"][data-name=\"flaky-ci-retry\"]"), "a version of flaky-ci-retry").await?;
            text_contains(&driver, "archive-diff", "Retry once, then file a bug.").await?;
            click(&driver, "archive-restore").await?;
            click(&driver, "confirm-ok").await?;
            ui::eventually("the file to be back on disk", || {
                let back = on_disk.exists();
                async move { Ok(back.then_some(())) }
            })
            .await?;

            ui::open_user_memories(&driver).await?;
            rows_until(&driver, "flaky-ci-retry back in the list", |rows| rows.iter().any(|r| r == "flaky-ci-retry")).await?;
            open_memory(&driver, "flaky-ci-retry").await?;
            text_contains(&driver, "detail-body", "Retry once, then file a bug.").await?;
            testid(&driver, "detail-edit").await?;
            Ok(())
        })
        .await?;
    let restored = std::fs::read_to_string(&file)?;
    ensure!(
        restored == original,
        "the restored file differs from the original:\n{restored}\n--- was ---\n{original}"
    );
    Ok(())
}
