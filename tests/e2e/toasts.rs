//! Toasts stay out of the way and speak plainly: never over a button, at most two at once,
//! dismissible, a failure in words with the raw error behind "Details"; a delete offers Undo,
//! which restores the archived version (with its embedding).

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{self, Rect};
use crate::seed::Sandbox;
use crate::ui::{self, click, testid};

/// Every displayed button's rectangle except the toasts' own, and every displayed toast's, taken
/// in one script: one frame of the page, so a toast replaced meanwhile (one at a time in a short
/// window) is never read half-gone as a stale element.
async fn button_and_toast_rects(
    driver: &WebDriver,
) -> TestResult<(Vec<(String, Rect)>, Vec<Rect>)> {
    let v = driver
        .execute(
            r#"const rect = (e) => { const r = e.getBoundingClientRect();
                 return { left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                          width: r.width, height: r.height, vw: innerWidth, vh: innerHeight }; };
               // The part of a button a person can see: clipped by every scrolling ancestor (a
               // button scrolled out of a form's fields is not under anything).
               const visible = (b) => {
                 const r = rect(b);
                 for (let p = b.parentElement; p; p = p.parentElement) {
                   const s = getComputedStyle(p);
                   if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
                   const c = p.getBoundingClientRect();
                   r.left = Math.max(r.left, c.left); r.top = Math.max(r.top, c.top);
                   r.right = Math.min(r.right, c.right); r.bottom = Math.min(r.bottom, c.bottom);
                 }
                 r.width = r.right - r.left; r.height = r.bottom - r.top;
                 return r;
               };
               const shown = (e) => e.getClientRects().length > 0;
               return [
                 [...document.querySelectorAll('button')]
                   .filter((b) => shown(b) && !b.closest('.toasts'))
                   .map((b) => [b.dataset.testid || b.textContent.trim(), visible(b)])
                   .filter(([, r]) => r.width > 0 && r.height > 0),
                 [...document.querySelectorAll('[data-testid="toast"]')].filter(shown).map(rect),
               ];"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

async fn assert_toasts_clear_of_buttons(driver: &WebDriver, when: &str) -> TestResult {
    let (buttons, toasts) = button_and_toast_rects(driver).await?;
    for t in &toasts {
        for (name, b) in &buttons {
            ensure!(
                !t.overlaps(b),
                "{when}: a toast ({t:?}) covers the button {name:?} ({b:?})"
            );
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_delete_toast_offers_undo_and_toasts_stay_clear_of_buttons() -> TestResult {
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
            "a_delete_toast_offers_undo_and_toasts_stay_clear_of_buttons",
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
                    assert_toasts_clear_of_buttons(&driver, &format!("after a save at {w}×{h}"))
                        .await?;
                    // Back in the form, the toast must not sit on Save or Cancel either.
                    click(&driver, "detail-edit").await?;
                    testid(&driver, "form-save").await?;
                    assert_toasts_clear_of_buttons(
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

/// Every displayed toast against every displayed control (input, select, textarea, button,
/// link, tab stop) and banner (an inline error, a notice) outside the toasts, measured in one
/// pass so nothing moves between the two: `(toasts shown, overlapping pairs)`.
async fn toasts_over_controls(driver: &WebDriver) -> TestResult<(usize, Vec<String>)> {
    let v = driver
        .execute(
            r#"const shown = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden';
               const box = (e) => e.getBoundingClientRect();
               // What a person can see of a control: clipped by every scrolling ancestor.
               const seen = (e) => {
                 const r = box(e);
                 let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
                 for (let p = e.parentElement; p; p = p.parentElement) {
                   const s = getComputedStyle(p);
                   if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
                   const c = p.getBoundingClientRect();
                   left = Math.max(left, c.left); top = Math.max(top, c.top);
                   right = Math.min(right, c.right); bottom = Math.min(bottom, c.bottom);
                 }
                 return { left, top, right, bottom, width: Math.max(0, right - left), height: Math.max(0, bottom - top) };
               };
               const name = (e) => e.dataset.testid || e.getAttribute('aria-label') || e.tagName + ':' + (e.textContent || '').trim().slice(0, 30);
               const toasts = [...document.querySelectorAll('[data-testid="toast"]:not(.leaving)')].filter(shown);
               const things = [...document.querySelectorAll(
                   'input, select, textarea, button, a[href], summary, [tabindex]:not([tabindex="-1"]), .banner, .form-error, [role="alert"], .error-box, .note')]
                 .filter((e) => shown(e) && !e.closest('.toasts'));
               const over = [];
               for (const t of toasts) {
                 const a = box(t);
                 for (const e of things) {
                   const b = seen(e);
                   if (b.width && b.height && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
                     over.push(`${name(e)} [${Math.round(b.left)},${Math.round(b.top)} ${Math.round(b.width)}x${Math.round(b.height)}] under a toast [${Math.round(a.left)},${Math.round(a.top)} ${Math.round(a.width)}x${Math.round(a.height)}]`);
                 }
               }
               return [toasts.length, over];"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

async fn assert_toasts_cover_nothing(driver: &WebDriver, when: &str) -> TestResult {
    let (shown, over) = toasts_over_controls(driver).await?;
    ensure!(
        shown > 0,
        "{when}: no toast is shown, so nothing was checked"
    );
    ensure!(over.is_empty(), "{when}: {}", over.join("; "));
    Ok(())
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
async fn toasts_never_cover_a_control_or_a_banner_in_the_form_dialogs_or_search() -> TestResult {
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
            "toasts_never_cover_a_control_or_a_banner_in_the_form_dialogs_or_search",
            &[("VISUAL", &missing_editor)],
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                // A short window keeps one toast: the strip they take is room the view gives up.
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
