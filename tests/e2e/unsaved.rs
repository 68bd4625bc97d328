//! Typed text in a trust anchor (USER.md, a project's AMBRY.md) is never thrown away without
//! asking: leaving for another view, Cancel and Esc all ask "Discard changes?", and keeping the
//! edit keeps every character; an unchanged editor closes without a question.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{self, press};
use crate::seed::Sandbox;
use crate::ui::{self, click, testid, text_contains, value_of};

async fn editor_text(driver: &WebDriver) -> TestResult<String> {
    value_of(&testid(driver, "anchor-editor").await?).await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn anchor_edits_are_never_discarded_without_asking() -> TestResult {
    let sandbox = Sandbox::new()?;
    let user_md = sandbox.home.join("USER.md");
    let file = user_md.clone();
    sandbox
        .run(
            "anchor_edits_are_never_discarded_without_asking",
            move |driver| async move {
                ui::ready(&driver).await?;
                click(&driver, "nav-anchor-user").await?;
                click(&driver, "anchor-create").await?;
                // The editor opens once the skeleton is on disk.
                testid(&driver, "anchor-editor").await?;
                let skeleton = std::fs::read_to_string(&file)?;
                // Unchanged: Esc just closes the editor.
                press(&driver, Key::Escape).await?;
                testid(&driver, "anchor-edit").await?;
                ensure!(
                    driver.find_all(ui::tid("confirm-dialog")).await?.is_empty(),
                    "an unchanged editor asked before closing"
                );

                click(&driver, "anchor-edit").await?;
                testid(&driver, "anchor-editor")
                    .await?
                    .send_keys("- Answer in British English.\n")
                    .await?;
                let typed = editor_text(&driver).await?;
                ensure!(
                    typed.contains("British English"),
                    "the editor holds {typed:?}"
                );

                // 1. Another view: asks; Cancel keeps the edit and the view.
                click(&driver, "nav-user").await?;
                text_contains(&driver, "confirm-message", "not saved").await?;
                text_contains(&driver, "confirm-dialog", "Discard changes?").await?;
                click(&driver, "confirm-cancel").await?;
                ui::gone(&driver, ui::tid("confirm-dialog"), "the question to close").await?;
                ensure!(
                    editor_text(&driver).await? == typed,
                    "keeping the edit changed the text"
                );
                testid(&driver, "anchor-view").await?;

                // 2. Esc in the editor: asks; Esc on the question keeps the edit.
                keys::focus_on(&driver, "anchor-editor").await?;
                press(&driver, Key::Escape).await?;
                testid(&driver, "confirm-dialog").await?;
                press(&driver, Key::Escape).await?;
                ui::gone(
                    &driver,
                    ui::tid("confirm-dialog"),
                    "Esc to close the question",
                )
                .await?;
                ensure!(
                    editor_text(&driver).await? == typed,
                    "Esc on the question changed the text"
                );

                // 3. Cancel: asks; Discard drops the edit, and the file is the skeleton still.
                click(&driver, "anchor-cancel").await?;
                click(&driver, "confirm-ok").await?;
                testid(&driver, "anchor-edit").await?;
                ensure!(
                    std::fs::read_to_string(&file)? == skeleton,
                    "discarding wrote the file"
                );

                // 4. Saved edits leave without a question.
                click(&driver, "anchor-edit").await?;
                testid(&driver, "anchor-editor")
                    .await?
                    .send_keys("- Prefer small commits.\n")
                    .await?;
                keys::press_ctrl(&driver, "s").await?;
                text_contains(&driver, "anchor-body", "Prefer small commits.").await?;
                ensure!(
                    std::fs::read_to_string(&file)?.contains("- Prefer small commits."),
                    "Ctrl+S did not save"
                );
                click(&driver, "nav-user").await?;
                text_contains(&driver, "memories-title", "User memories").await?;
                ensure!(
                    driver.find_all(ui::tid("confirm-dialog")).await?.is_empty(),
                    "a saved edit asked before leaving"
                );

                // 5. Discarding from another view does leave: the edit is gone, the view changes.
                click(&driver, "nav-anchor-user").await?;
                click(&driver, "anchor-edit").await?;
                testid(&driver, "anchor-editor")
                    .await?
                    .send_keys("throwaway")
                    .await?;
                click(&driver, "nav-settings").await?;
                click(&driver, "confirm-ok").await?;
                testid(&driver, "settings-view").await?;
                ensure!(
                    !std::fs::read_to_string(&file)?.contains("throwaway"),
                    "a discarded edit reached the file"
                );
                Ok(())
            },
        )
        .await?;
    ensure!(
        std::fs::read_to_string(&user_md)?.contains("Prefer small commits."),
        "USER.md lost the saved edit"
    );
    Ok(())
}
