//! Toasts stay out of the way and speak plainly: over the window without moving it, never over
//! the control that has focus, at most two at once, dismissible, a failure in words with the raw
//! error behind "Details"; a delete offers Undo, which restores the archived version (with its
//! embedding).

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys;
use crate::seed::Sandbox;
use crate::ui::{self, click, testid};

/// The control that has focus, when a toast lies over it, and whether the window's content
/// still takes the whole window (nothing gave room up to the toasts), read in one frame.
async fn toast_over_focus(driver: &WebDriver) -> TestResult<(Option<String>, bool)> {
    let v = driver
        .execute(
            r#"const f = document.activeElement;
               const whole = ['.app', '.main'].every((s) => {
                 const e = document.querySelector(s);
                 return !e || Math.abs(e.getBoundingClientRect().height - innerHeight) < 0.5;
               });
               if (!f || f === document.body || f.closest('.toasts')) return [null, whole];
               const a = f.getBoundingClientRect();
               const over = [...document.querySelectorAll('[data-testid="toast"]:not(.leaving)')]
                 .filter((t) => t.getClientRects().length)
                 .map((t) => t.getBoundingClientRect())
                 .some((b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom);
               return [over ? (f.dataset.testid || f.tagName) : null, whole];"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

async fn assert_toasts_clear_of_focus(driver: &WebDriver, when: &str) -> TestResult {
    let (over, whole) = toast_over_focus(driver).await?;
    ensure!(
        over.is_none(),
        "{when}: a toast lies over the focused {over:?}"
    );
    ensure!(
        whole,
        "{when}: the window's content gave room up to the toasts"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_delete_toast_offers_undo_and_toasts_stay_clear_of_the_focused_control() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.with_models()?;
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
        .run(
            "a_delete_toast_offers_undo_and_toasts_stay_clear_of_the_focused_control",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                for (w, h) in [(1280, 800), (720, 480)] {
                    keys::resize(&driver, w, h).await?;
                    ui::open_memory(&driver, "vendor-lockfile").await?;
                    click(&driver, "detail-edit").await?;
                    ui::fill(
                        &testid(&driver, "form-description").await?,
                        &format!("Commit Cargo.lock for binaries ({w})"),
                    )
                    .await?;
                    click(&driver, "form-save").await?;
                    ui::shown(&driver, ui::tid("toast"), "the save toast").await?;
                    assert_toasts_clear_of_focus(&driver, &format!("after a save at {w}×{h}"))
                        .await?;
                    // Back in the form, the toast is not over the field being written in.
                    click(&driver, "detail-edit").await?;
                    testid(&driver, "form-save").await?;
                    assert_toasts_clear_of_focus(
                        &driver,
                        &format!("with the form open at {w}×{h}"),
                    )
                    .await?;
                    click(&driver, "form-cancel").await?;
                }
                keys::resize(&driver, 1280, 800).await?;

                ui::open_memory(&driver, "flaky-ci-retry").await?;
                click(&driver, "detail-delete").await?;
                click(&driver, "confirm-ok").await?;
                ui::rows_until(&driver, "flaky-ci-retry to leave the list", |r| {
                    !r.iter().any(|n| n == "flaky-ci-retry")
                })
                .await?;
                ensure!(
                    !on_disk.exists(),
                    "the file is still on disk after the delete"
                );
                ui::text_contains(&driver, "toast", "moved to the archive").await?;
                click(&driver, "toast-action").await?;
                ui::rows_until(&driver, "Undo to bring flaky-ci-retry back", |r| {
                    r.iter().any(|n| n == "flaky-ci-retry")
                })
                .await?;
                ui::text_contains(&driver, "detail-name", "flaky-ci-retry").await?;
                Ok(())
            },
        )
        .await?;
    let restored = std::fs::read_to_string(&file)?;
    ensure!(
        restored == original,
        "Undo restored something else:\n{restored}\n--- was ---\n{original}"
    );
    // Restored through the save-with-vector path: the embedding is there without a reindex.
    ensure!(
        file.with_extension("vec").is_file(),
        "the restored memory has no embedding sidecar"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn failures_read_as_words_with_details_on_demand_at_most_two_at_once() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("deploy-steps", "project", "How we ship", "make release\n")?;
    let missing_editor = sandbox.user_home.join("no-such-editor");
    sandbox
        .run_with_env(
            "failures_read_as_words_with_details_on_demand_at_most_two_at_once",
            &[("VISUAL", &missing_editor)],
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                ui::open_memory(&driver, "deploy-steps").await?;
                for _ in 0..3 {
                    click(&driver, "detail-open-editor").await?;
                }
                ui::eventually("three failures to have been reported", || async {
                    Ok((driver
                        .find_all(ui::css("[data-testid=\"toast\"][data-kind=\"error\"]"))
                        .await?
                        .len()
                        >= 2)
                        .then_some(()))
                })
                .await?;
                tokio::time::sleep(std::time::Duration::from_millis(600)).await;
                let shown =
                    ui::texts(&driver, ui::css("[data-testid=\"toast\"]:not(.leaving)")).await?;
                ensure!(
                    shown.len() <= 2,
                    "{} toasts at once: {shown:?}",
                    shown.len()
                );
                let message = driver
                    .find(ui::css(
                        "[data-testid=\"toast\"]:not(.leaving) .toast-message",
                    ))
                    .await?
                    .text()
                    .await?;
                ensure!(
                    message.starts_with("Could not open the editor"),
                    "the toast says {message:?}"
                );
                ensure!(
                    !message.contains("no-such-editor") && !message.contains("os error"),
                    "the toast shows the raw error: {message:?}"
                );
                // The raw error is one click away, and stays while it is read.
                let toast = driver
                    .find(ui::css("[data-testid=\"toast\"]:not(.leaving)"))
                    .await?;
                toast
                    .find(By::Css("[data-testid=\"toast-details\"]"))
                    .await?
                    .click()
                    .await?;
                let details = toast
                    .find(By::Css("[data-testid=\"toast-details-text\"]"))
                    .await?
                    .text()
                    .await?;
                ensure!(
                    details.contains("no-such-editor"),
                    "the details do not name what failed: {details:?}"
                );
                toast
                    .find(By::Css("[data-testid=\"toast-dismiss\"]"))
                    .await?
                    .click()
                    .await?;
                ui::eventually("the dismissed toast to go", || {
                    let toast = toast.clone();
                    async move {
                        Ok((!toast.is_present().await? || !toast.is_displayed().await?)
                            .then_some(()))
                    }
                })
                .await?;
                Ok(())
            },
        )
        .await
}

async fn assert_toasts_cover_nothing(driver: &WebDriver, when: &str) -> TestResult {
    let shown = driver
        .find_all(ui::css("[data-testid=\"toast\"]:not(.leaving)"))
        .await?
        .len();
    ensure!(
        shown > 0,
        "{when}: no toast is shown, so nothing was checked"
    );
    assert_toasts_clear_of_focus(driver, when).await
}

/// Two failures reported as toasts (a missing editor), to have toasts on screen: two in a tall
/// window, the newer alone in a short one. Returns how many show.
async fn error_toasts(driver: &WebDriver, want: usize) -> TestResult<usize> {
    for _ in 0..2 {
        click(driver, "detail-open-editor").await?;
    }
    ui::eventually(&format!("{want} error toast(s)"), || async {
        let n = driver
            .find_all(ui::css(
                "[data-testid=\"toast\"][data-kind=\"error\"]:not(.leaving)",
            ))
            .await?
            .len();
        Ok((n == want).then_some(n))
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn toasts_never_cover_the_focused_control_in_the_form_dialogs_or_search() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "release-bucket",
        "project",
        "Where release artifacts go",
        "The release bucket holds every build.\n",
    )?;
    sandbox.add_project("shop")?;
    let missing_editor = sandbox.user_home.join("no-such-editor");
    sandbox
        .run_with_env(
            "toasts_never_cover_the_focused_control_in_the_form_dialogs_or_search",
            &[("VISUAL", &missing_editor)],
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                // A short window keeps one toast.
                for (w, h, toasts) in [(1280, 800, 2), (720, 480, 1)] {
                    keys::resize(&driver, w, h).await?;
                    ui::open_memory(&driver, "release-bucket").await?;
                    error_toasts(&driver, toasts).await?;
                    // The edit form with a secret refused: its banner under the fields.
                    click(&driver, "detail-edit").await?;
                    ui::fill(
                        &testid(&driver, "form-body").await?,
                        "Deploy with AWS key AKIAZ3MXQ7V2LPRT4K9B for the release bucket.",
                    )
                    .await?;
                    keys::press_ctrl(&driver, "s").await?;
                    ui::shown(&driver, ui::tid("form-error"), "the secret's refusal").await?;
                    crate::harness::capture(&driver, &format!("toasts-form-{w}x{h}")).await?;
                    assert_toasts_cover_nothing(&driver, &format!("the edit form at {w}×{h}"))
                        .await?;
                    // Esc asks before dropping the edit: the question's buttons stay clear.
                    keys::press(&driver, Key::Escape).await?;
                    testid(&driver, "confirm-ok").await?;
                    assert_toasts_cover_nothing(&driver, &format!("the discard dialog at {w}×{h}"))
                        .await?;
                    click(&driver, "confirm-ok").await?;
                    testid(&driver, "detail-edit").await?;
                    // Search with its scope picker.
                    error_toasts(&driver, toasts).await?;
                    keys::press_ctrl(&driver, "k").await?;
                    ui::shown(&driver, ui::tid("search-input"), "the search overlay").await?;
                    crate::harness::capture(&driver, &format!("toasts-search-{w}x{h}")).await?;
                    assert_toasts_cover_nothing(&driver, &format!("search at {w}×{h}")).await?;
                    keys::press(&driver, Key::Escape).await?;
                    ui::gone(&driver, ui::tid("search-input"), "the search overlay").await?;
                }
                Ok(())
            },
        )
        .await
}
