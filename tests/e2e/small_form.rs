//! The smallest window (720×480). The edit form, by keyboard: the list shows a memory's name
//! whole, the form keeps its title and its Save bar in view with the fields scrolling between
//! them (the bar never lies over the body), the body is tall enough to write in, and Ctrl+S
//! saves. The compose preview keeps its block readable.

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{focused, press, press_ctrl, rect, resize};
use crate::seed::Sandbox;
use crate::ui::{self, testid};

const NAME: &str = "quarterly-key-rotation";

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_edit_form_works_at_720x480_by_keyboard() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        NAME,
        "project",
        "How and when the signing keys are rotated",
        "Rotate the signing keys every quarter.\n",
    )?;
    let file = sandbox.user_memory_file(NAME);
    sandbox
        .run("the_edit_form_works_at_720x480_by_keyboard", move |driver| async move {
            ui::open_user_memories(&driver).await?;
            resize(&driver, 720, 480).await?;
            ui::gone(&driver, ui::tid("sidebar"), "the sidebar to collapse at 720 px").await?;
            // The name is not cut in the list.
            let cut: bool = driver
                .execute(
                    r#"const n = [...document.querySelectorAll('.memory-row .row-name')].find((e) => e.textContent === arguments[0]);
                       return !n || n.scrollWidth > n.clientWidth + 1;"#,
                    vec![serde_json::json!(NAME)],
                )
                .await?
                .convert()?;
            ensure!(!cut, "the name {NAME} is cut in the list at 720 px");
            // Keyboard: into the list, the memory, its actions, Edit.
            testid(&driver, "memory-list").await?.focus().await?;
            press(&driver, Key::Down).await?;
            ui::shown(&driver, ui::tid("detail-name"), "the memory's detail").await?;
            press(&driver, Key::Enter).await?;
            ensure!(focused(&driver).await?.testid == "detail-edit", "Enter in the list did not reach Edit: {:?}", focused(&driver).await?);
            press(&driver, Key::Enter).await?;
            let body = ui::shown(&driver, ui::tid("form-body"), "the edit form").await?;
            body.focus().await?;
            // A long body: the fields scroll, the title and Save stay.
            let lines: String = (0..40).map(|i| format!("\nStep {i}: check the signing key.")).collect();
            body.send_keys(Key::End).await?;
            body.send_keys(&lines).await?;
            capture(&driver, "edit-form-720x480").await?;
            let pane = rect(&driver, "[data-testid=\"memory-detail\"]").await?;
            let head = rect(&driver, ".memory-form .form-head").await?;
            let fields = rect(&driver, "[data-testid=\"form-fields\"]").await?;
            let actions = rect(&driver, ".memory-form .form-actions").await?;
            let textarea = rect(&driver, "[data-testid=\"form-body\"]").await?;
            ensure!(head.top >= pane.top - 0.5 && head.bottom <= fields.top + 0.5, "the form title is out of view: {head:?}, fields {fields:?}");
            ensure!(actions.top >= fields.bottom - 0.5 && actions.bottom <= pane.vh + 0.5, "the Save bar overlaps the fields or is off screen: {actions:?}, fields {fields:?}");
            ensure!(textarea.height >= 80.0, "the body is {} px tall", textarea.height);
            let page_scrolls: bool = driver
                .execute("const p = document.querySelector('[data-testid=\"memory-detail\"]'); return p.scrollHeight > p.clientHeight + 1;", vec![])
                .await?
                .convert()?;
            ensure!(!page_scrolls, "the pane scrolls under the form instead of its fields");
            let name_input = rect(&driver, "[data-testid=\"form-name\"]").await?;
            ensure!(name_input.width >= 180.0, "the name field is {} px wide", name_input.width);
            press_ctrl(&driver, "s").await?;
            ui::gone(&driver, ui::tid("memory-form"), "the form to close after Ctrl+S").await?;
            ensure!(focused(&driver).await?.testid == "detail-edit", "focus after Ctrl+S: {:?}", focused(&driver).await?);
            let text = std::fs::read_to_string(&file)?;
            ensure!(text.contains("Step 39: check the signing key."), "the body was not saved:\n{text}");
            Ok(())
        })
        .await
}

/// The compose preview in the smallest window: the block keeps room to be read (it was two
/// lines tall under the inputs and the side lists).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_compose_block_is_readable_at_720x480() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "token-refresh",
        "project",
        "How the auth middleware refreshes tokens",
        "Refresh the token under the session lock; the race in the auth middleware came from two refreshes.\n",
    )?;
    sandbox
        .run(
            "the_compose_block_is_readable_at_720x480",
            |driver| async move {
                ui::open_compose(&driver).await?;
                resize(&driver, 720, 480).await?;
                testid(&driver, "compose-prompt")
                    .await?
                    .send_keys("fix the token refresh race in the auth middleware")
                    .await?;
                ui::text_contains(&driver, "compose-output", "token-refresh").await?;
                capture(&driver, "compose-720x480").await?;
                let block = rect(&driver, "[data-testid=\"compose-output\"]").await?;
                ensure!(
                    block.height >= 150.0,
                    "the compose block is {} px tall at 720×480",
                    block.height
                );
                ensure!(
                    block.right <= block.vw + 0.5,
                    "the compose block overflows the window: {block:?}"
                );
                Ok(())
            },
        )
        .await
}
