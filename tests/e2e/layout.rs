//! Layouts hold from the minimum window (720×480) up: the sidebar collapses behind a button and
//! opens over the view, the detail pane keeps a readable width, the edit form's fields fit at
//! 900×600, and Save stays in view when the "changed on disk" banner appears.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{self, press, rect, resize};
use crate::seed::Sandbox;
use crate::ui::{self, click, testid};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_layout_holds_at_the_minimum_window_and_the_form_fits_at_900x600() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "release-checklist-for-the-payments-service",
        "project",
        "Everything to check before tagging a release of the payments service",
        &format!("Run the suite.\n\n{}\n", "x".repeat(400)),
    )?;
    let store_home = sandbox.home.clone();
    sandbox
        .run("the_layout_holds_at_the_minimum_window_and_the_form_fits_at_900x600", move |driver| async move {
            ui::open_user_memories(&driver).await?;
            resize(&driver, 720, 480).await?;
            // The sidebar is collapsed; the toggle shows it over the view and a choice hides it.
            ui::gone(&driver, ui::tid("sidebar"), "the sidebar to collapse at 720 px").await?;
            click(&driver, "sidebar-toggle").await?;
            let sidebar = rect(&driver, "[data-testid=\"sidebar\"]").await?;
            ensure!(sidebar.left == 0.0 && sidebar.width <= 280.0, "the opened sidebar: {sidebar:?}");
            // Esc closes it and gives focus back to the toggle.
            press(&driver, Key::Escape).await?;
            ui::gone(&driver, ui::tid("sidebar"), "Esc to hide the sidebar").await?;
            ensure!(keys::focused(&driver).await?.testid == "sidebar-toggle", "focus after Esc is not on the toggle");
            click(&driver, "sidebar-toggle").await?;
            click(&driver, "nav-user").await?;
            ui::gone(&driver, ui::tid("sidebar"), "choosing a view to hide the sidebar").await?;

            ui::open_memory(&driver, "release-checklist-for-the-payments-service").await?;
            let pane = rect(&driver, "[data-testid=\"memory-detail\"]").await?;
            ensure!(pane.width >= 380.0, "the detail pane is {} px wide at 720×480", pane.width);
            ensure!(pane.right <= pane.vw + 0.5, "the detail pane overflows the window: {pane:?}");
            // The title wraps at most once or twice, not every few letters.
            let title = rect(&driver, "[data-testid=\"detail-name\"]").await?;
            ensure!(title.height <= 3.0 * 28.0, "the title takes {} px of height", title.height);
            // A long unbroken line wraps inside the pane.
            let body = rect(&driver, "[data-testid=\"detail-body\"]").await?;
            let scroll: f64 = driver
                .execute("const b = document.querySelector('[data-testid=\"detail-body\"]'); return b.scrollWidth - b.clientWidth;", vec![])
                .await?
                .convert()?;
            ensure!(scroll <= 1.0 && body.right <= pane.right + 0.5, "the body overflows by {scroll} px: {body:?}");
            // The header's buttons are inside the window.
            let new_button = rect(&driver, "[data-testid=\"memory-new\"]").await?;
            ensure!(new_button.right <= new_button.vw && new_button.bottom <= new_button.vh, "New memory is off screen: {new_button:?}");

            resize(&driver, 900, 600).await?;
            click(&driver, "detail-edit").await?;
            let form = rect(&driver, "[data-testid=\"memory-form\"]").await?;
            for field in ["form-name", "form-type", "form-description"] {
                let r = rect(&driver, &format!("[data-testid=\"{field}\"]")).await?;
                ensure!(r.width >= 200.0, "{field} is {} px wide at 900×600", r.width);
                ensure!(r.left >= form.left - 0.5 && r.right <= form.right + 0.5, "{field} sticks out of the form: {r:?} vs {form:?}");
            }
            let save = rect(&driver, "[data-testid=\"form-save\"]").await?;
            ensure!(save.bottom <= save.vh, "Save is below the window at 900×600: {save:?}");

            // Another process changes the memory while the form is open: the banner appears
            // and Save is still in view.
            let store = ambry_store::memory::Store::new(ambry_core::AmbryHome::new(&store_home), None);
            let draft = ambry_store::memory::MemoryDraft {
                name: "release-checklist-for-the-payments-service".into(),
                kind: "project".into(),
                description: "Changed by an agent".into(),
                body: "Changed.\n".into(),
                tags: vec![],
            };
            store.save(ambry_store::memory::Scope::User, draft, chrono::Utc::now())?;
            testid(&driver, "detail-stale").await?;
            let save = rect(&driver, "[data-testid=\"form-save\"]").await?;
            ensure!(save.bottom <= save.vh && save.top >= 0.0, "Save left the window after the banner: {save:?}");
            Ok(())
        })
        .await
}
