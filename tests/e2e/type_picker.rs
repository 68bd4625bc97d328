//! The memory form's type field is a picker: ↓ lists the conventional types and the ones already
//! used in the store, ↑/↓ move, Enter picks (never saves), Esc closes the list (not the form),
//! and a new label can still be typed and is saved as the store normalizes it.

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{self, press, press_shift};
use crate::seed::Sandbox;
use crate::ui::{self, click, open_memory, testid, value_of};

/// The listed types, in order, and the highlighted one; `None` while the list is closed.
async fn listed(driver: &WebDriver) -> TestResult<Option<(Vec<String>, String)>> {
    let list = driver.find(ui::tid("type-options")).await?;
    if !list.is_displayed().await? {
        return Ok(None);
    }
    let mut types = Vec::new();
    let mut active = String::new();
    for option in list
        .find_all(By::Css("[data-testid=\"type-option\"]"))
        .await?
    {
        let t = option.attr("data-type").await?.unwrap_or_default();
        if option.attr("data-active").await?.as_deref() == Some("true") {
            active = t.clone();
        }
        types.push(t);
    }
    Ok(Some((types, active)))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_type_is_picked_from_a_list_by_keyboard_and_a_new_label_still_saves() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("deploy-steps", "project", "How we ship", "make release\n")?;
    sandbox.save_user(
        "oncall-rota",
        "runbook",
        "Who is on call",
        "See the rota.\n",
    )?;
    let file = sandbox.user_memory_file("deploy-steps");
    let before = std::fs::read_to_string(&file)?;
    let unchanged = file.clone();
    sandbox
        .run(
            "the_type_is_picked_from_a_list_by_keyboard_and_a_new_label_still_saves",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                open_memory(&driver, "deploy-steps").await?;
                click(&driver, "detail-edit").await?;
                testid(&driver, "form-body").await?;
                // From the body, back to the type field.
                press_shift(&driver, Key::Tab).await?;
                press_shift(&driver, Key::Tab).await?;
                let focus = keys::focused(&driver).await?;
                ensure!(
                    focus.testid == "form-type",
                    "Shift+Tab twice from the body reached {focus:?}"
                );
                ensure!(
                    listed(&driver).await?.is_none(),
                    "the list opened by itself"
                );

                press(&driver, Key::Down).await?;
                let (types, active) = listed(&driver).await?.ok_or("↓ did not open the list")?;
                ensure!(
                    types == ["user", "feedback", "project", "reference", "runbook"],
                    "the types offered: {types:?}"
                );
                ensure!(
                    active == "project",
                    "the highlighted type is {active:?}, not the memory's"
                );
                capture(&driver, "type-picker-open").await?;
                press(&driver, Key::Up).await?;
                press(&driver, Key::Enter).await?;
                let value = value_of(&testid(&driver, "form-type").await?).await?;
                ensure!(value == "feedback", "Enter picked {value:?}");
                ensure!(
                    listed(&driver).await?.is_none(),
                    "the list stayed open after Enter"
                );
                testid(&driver, "memory-form").await?;
                ensure!(
                    std::fs::read_to_string(&unchanged)? == before,
                    "Enter in the list saved the memory"
                );

                // Typing filters; Esc closes the list and leaves the form open.
                ui::fill(&testid(&driver, "form-type").await?, "run").await?;
                let (types, active) = listed(&driver)
                    .await?
                    .ok_or("typing did not show the list")?;
                ensure!(
                    types == ["runbook"] && active == "runbook",
                    "typing 'run' lists {types:?} ({active:?})"
                );
                press(&driver, Key::Escape).await?;
                ensure!(
                    listed(&driver).await?.is_none(),
                    "Esc did not close the list"
                );
                ensure!(
                    testid(&driver, "memory-form").await?.is_displayed().await?,
                    "Esc in the list closed the form"
                );

                // A label of one's own is still accepted, normalized by the store.
                ui::fill(&testid(&driver, "form-type").await?, "Ops Notes").await?;
                ensure!(
                    listed(&driver).await?.is_none(),
                    "a new label still shows a list"
                );
                keys::press_ctrl(&driver, "s").await?;
                ui::text_contains(&driver, "detail-type", "ops-notes").await?;
                Ok(())
            },
        )
        .await?;
    let after = std::fs::read_to_string(&file)?;
    ensure!(
        after.contains("type: ops-notes"),
        "the saved file:\n{after}"
    );
    Ok(())
}
