//! Several memories at once in the memory list: Shift+↓ extends the selection, Esc clears it,
//! Ctrl+click and Shift+click pick and range, Ctrl+A takes the whole list; the count shows; and
//! Delete archives all the selected memories at once, with one Undo that brings them all back.

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{self, press, press_shift};
use crate::seed::Sandbox;
use crate::ui::{self, css, open_memory, testid};

const NAMES: [&str; 5] = [
    "alpha-note",
    "beta-note",
    "delta-note",
    "gamma-note",
    "omega-note",
];

/// The rows marked selected, in list order.
async fn selected(driver: &WebDriver) -> TestResult<Vec<String>> {
    let mut out = Vec::new();
    for row in driver
        .find_all(css("[data-testid=\"memory-row\"][data-selected=\"true\"]"))
        .await?
    {
        out.push(row.attr("data-name").await?.unwrap_or_default());
    }
    Ok(out)
}

async fn selected_until(driver: &WebDriver, want: &[&str]) -> TestResult {
    let seen = std::sync::Mutex::new(Vec::new());
    let outcome = ui::eventually(&format!("the selection to be {want:?}"), || {
        let seen = &seen;
        async move {
            let now = selected(driver).await?;
            *seen.lock().unwrap() = now.clone();
            Ok((now == want).then_some(()))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; selected: {:?}", seen.lock().unwrap()).into())
}

async fn row(driver: &WebDriver, name: &str) -> TestResult<WebElement> {
    Ok(driver
        .find(css(&format!(
            "[data-testid=\"memory-row\"][data-name=\"{name}\"]"
        )))
        .await?)
}

async fn click_with(driver: &WebDriver, key: Key, name: &str) -> TestResult {
    let target = row(driver, name).await?;
    driver
        .action_chain()
        .key_down(key.clone())
        .click_element(&target)
        .key_up(key)
        .perform()
        .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn several_memories_are_selected_by_keyboard_and_mouse_and_deleted_with_one_undo(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    for name in NAMES {
        sandbox.save_user(
            name,
            "project",
            &format!("About {name}"),
            &format!("{name} body\n"),
        )?;
    }
    let files: Vec<_> = NAMES.iter().map(|n| sandbox.user_memory_file(n)).collect();
    let originals: Vec<String> = files
        .iter()
        .map(std::fs::read_to_string)
        .collect::<Result<_, _>>()?;
    let on_disk = files.clone();
    sandbox
        .run(
            "several_memories_are_selected_by_keyboard_and_mouse_and_deleted_with_one_undo",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                open_memory(&driver, "alpha-note").await?;
                // Shift+↓ twice: three selected, counted in the pane and the header.
                press_shift(&driver, Key::Down).await?;
                press_shift(&driver, Key::Down).await?;
                selected_until(&driver, &["alpha-note", "beta-note", "delta-note"]).await?;
                ui::text_contains(&driver, "memory-selection-count", "3 memories selected").await?;
                ui::text_contains(&driver, "memories-count", "3 selected").await?;
                let names = ui::texts(&driver, ui::tid("memory-bulk-name")).await?;
                ensure!(
                    names == ["alpha-note", "beta-note", "delta-note"],
                    "the bulk panel lists {names:?}"
                );
                capture(&driver, "multi-select-range").await?;
                // Shift+↑ gives one back.
                press_shift(&driver, Key::Up).await?;
                selected_until(&driver, &["alpha-note", "beta-note"]).await?;
                // Esc: back to the one memory under the cursor.
                press(&driver, Key::Escape).await?;
                selected_until(&driver, &["beta-note"]).await?;
                ui::text_contains(&driver, "detail-name", "beta-note").await?;
                let count = testid(&driver, "memories-count").await?.text().await?;
                ensure!(
                    !count.contains("selected"),
                    "the header still counts a selection: {count:?}"
                );

                // Ctrl+click adds, Shift+click takes the range from the last one picked.
                click_with(&driver, Key::Control, "delta-note").await?;
                selected_until(&driver, &["beta-note", "delta-note"]).await?;
                click_with(&driver, Key::Shift, "omega-note").await?;
                selected_until(&driver, &["delta-note", "gamma-note", "omega-note"]).await?;
                click_with(&driver, Key::Control, "gamma-note").await?;
                selected_until(&driver, &["delta-note", "omega-note"]).await?;
                // Ctrl+A in the list: all of them.
                keys::press_ctrl(&driver, "a").await?;
                selected_until(&driver, &NAMES).await?;
                ui::text_contains(&driver, "memory-selection-count", "5 memories selected").await?;

                // A plain click is one again; pick three and delete them with the keyboard.
                ui::open_memory(&driver, "alpha-note").await?;
                selected_until(&driver, &["alpha-note"]).await?;
                click_with(&driver, Key::Control, "beta-note").await?;
                click_with(&driver, Key::Control, "gamma-note").await?;
                selected_until(&driver, &["alpha-note", "beta-note", "gamma-note"]).await?;
                let focus = keys::focused(&driver).await?;
                ensure!(
                    focus.testid == "memory-list",
                    "focus is on {focus:?}, not the list"
                );
                press(&driver, Key::Delete).await?;
                ui::text_contains(&driver, "confirm-ok", "Move 3 to the archive").await?;
                // A delete's question starts on Cancel; Tab reaches the delete.
                press(&driver, Key::Tab).await?;
                let focus = keys::focused(&driver).await?;
                ensure!(
                    focus.testid == "confirm-ok",
                    "Tab in the question went to {focus:?}"
                );
                press(&driver, Key::Enter).await?;
                ui::rows_until(&driver, "the three to leave the list", |r| {
                    r == ["delta-note", "omega-note"]
                })
                .await?;
                for (i, file) in on_disk.iter().enumerate() {
                    ensure!(
                        file.exists() == (i >= 2 && NAMES[i] != "gamma-note"),
                        "{} on disk after the delete: {}",
                        NAMES[i],
                        file.exists()
                    );
                }
                ui::text_contains(&driver, "toast", "3 memories moved to the archive").await?;
                ui::click(&driver, "toast-action").await?;
                ui::rows_until(&driver, "Undo to bring all three back", |r| r == NAMES).await?;
                selected_until(&driver, &["alpha-note", "beta-note", "gamma-note"]).await?;
                Ok(())
            },
        )
        .await?;
    for (i, file) in files.iter().enumerate() {
        let now = std::fs::read_to_string(file)?;
        ensure!(
            now == originals[i],
            "{} came back different:\n{now}\n--- was ---\n{}",
            NAMES[i],
            originals[i]
        );
    }
    Ok(())
}
