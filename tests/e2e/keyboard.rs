//! Keyboard-only journeys: overlays trap focus and Esc always closes them; Enter on a sidebar
//! item carries focus into the view's list, which shows its focus ring before anything is
//! selected; ↑/↓ move one row (Archive included) and the listbox names its row through
//! aria-activedescendant; a dropdown shows focus; a transcript's folded tool calls are one Tab
//! stop moved through with the arrow keys.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{self, focused, press, press_ctrl, press_shift};
use crate::seed::Sandbox;
use crate::ui::{self, testid};

fn seeded() -> TestResult<Sandbox> {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("alpha-notes", "project", "First memory", "one\n")?;
    sandbox.save_user("beta-notes", "project", "Second memory", "two\n")?;
    sandbox.save_user("gamma-notes", "reference", "Third memory", "three\n")?;
    Ok(sandbox)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_search_overlay_and_the_dialog_trap_focus_and_esc_closes_them() -> TestResult {
    let sandbox = seeded()?;
    sandbox
        .run("the_search_overlay_and_the_dialog_trap_focus_and_esc_closes_them", |driver| async move {
            ui::open_user_memories(&driver).await?;
            press_ctrl(&driver, "k").await?;
            testid(&driver, "search-input").await?.send_keys("notes").await?;
            ui::shown(&driver, ui::tid("search-result"), "search results").await?;
            // Tab and Shift+Tab, many times: focus never leaves the overlay.
            let mut saw_dropdown = false;
            for i in 0..8 {
                if i < 5 {
                    press(&driver, Key::Tab).await?;
                } else {
                    press_shift(&driver, Key::Tab).await?;
                }
                let f = focused(&driver).await?;
                let typed = ui::value_of(&testid(&driver, "search-input").await?).await?;
                ensure!(
                    f.within("search-overlay"),
                    "Tab #{i} left the search overlay: focus on {f:?} (query {typed:?})"
                );
                if f.testid == "search-project" {
                    saw_dropdown = true;
                    ensure!(f.ring, "the focused dropdown shows no focus ring (Tab #{i}, query {typed:?}): {f:?}");
                }
            }
            ensure!(saw_dropdown, "Tab never reached the project dropdown in the overlay");
            // Esc closes it from wherever focus is inside (here: possibly the dropdown).
            press(&driver, Key::Escape).await?;
            ui::gone(&driver, ui::tid("search-overlay"), "Esc to close the search overlay").await?;
            // The listbox names the active result for assistive tech.
            press_ctrl(&driver, "k").await?;
            press(&driver, Key::Down).await?;
            let f = focused(&driver).await?;
            ensure!(f.testid == "search-input", "focus after reopening: {f:?}");
            ensure!(f.activedescendant == "search-option-1", "aria-activedescendant after ↓: {:?}", f.activedescendant);
            press(&driver, Key::Escape).await?;
            ui::gone(&driver, ui::tid("search-overlay"), "Esc to close the search overlay again").await?;

            // The modal dialog: Tab stays inside, Esc closes it and keeps the memory.
            ui::open_memory(&driver, "beta-notes").await?;
            ui::click(&driver, "detail-delete").await?;
            testid(&driver, "confirm-dialog").await?;
            for i in 0..5 {
                press(&driver, Key::Tab).await?;
                let f = focused(&driver).await?;
                ensure!(f.within("confirm-dialog"), "Tab #{i} left the dialog: focus on {f:?}");
                ensure!(f.ring, "the focused dialog button shows no focus ring: {f:?}");
            }
            press(&driver, Key::Escape).await?;
            ui::gone(&driver, ui::tid("confirm-dialog"), "Esc to close the dialog").await?;
            ui::rows_until(&driver, "beta-notes still listed", |r| r.iter().any(|n| n == "beta-notes")).await?;
            Ok(())
        })
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn enter_on_the_sidebar_moves_focus_into_the_list_and_arrows_move_one_row() -> TestResult {
    let sandbox = seeded()?;
    // Two archived versions each of two memories, saved alternately (the archive lists them by
    // time across memories; the view groups them by memory).
    for round in 0..2 {
        sandbox.save_user(
            "alpha-notes",
            "project",
            "First memory",
            &format!("one, take {round}\n"),
        )?;
        sandbox.save_user(
            "beta-notes",
            "project",
            "Second memory",
            &format!("two, take {round}\n"),
        )?;
    }
    sandbox
        .run(
            "enter_on_the_sidebar_moves_focus_into_the_list_and_arrows_move_one_row",
            |driver| async move {
                ui::ready(&driver).await?;
                keys::focus_on(&driver, "nav-compose").await?;
                press(&driver, Key::Enter).await?;
                ensure!(
                    focused(&driver).await?.testid == "compose-prompt",
                    "Enter on Compose preview did not focus its prompt"
                );
                keys::focus_on(&driver, "nav-user").await?;
                press(&driver, Key::Enter).await?;
                ui::text_contains(&driver, "memories-title", "User memories").await?;
                let f = ui::eventually("focus in the memory list", || async {
                    let f = focused(&driver).await?;
                    Ok((f.testid == "memory-list").then_some(f))
                })
                .await?;
                // Nothing selected yet, and the list shows it has focus.
                ensure!(
                    f.ring,
                    "the focused memory list shows no focus ring before a selection"
                );
                ensure!(
                    ui::texts(
                        &driver,
                        ui::css("[data-testid=\"memory-row\"][data-selected=\"true\"]")
                    )
                    .await?
                    .is_empty(),
                    "a row is selected already"
                );
                press(&driver, Key::Down).await?;
                press(&driver, Key::Down).await?;
                ui::text_contains(&driver, "detail-name", "beta-notes").await?;
                let f = focused(&driver).await?;
                ensure!(
                    f.testid == "memory-list",
                    "↓ moved focus out of the list: {f:?}"
                );
                ensure!(
                    f.activedescendant == "memory-option-beta-notes",
                    "aria-activedescendant: {:?}",
                    f.activedescendant
                );

                // Archive: ↓ goes to the next row on screen, one at a time.
                keys::focus_on(&driver, "nav-archive").await?;
                press(&driver, Key::Enter).await?;
                ui::shown(&driver, ui::tid("archive-version"), "archived versions").await?;
                ensure!(
                    focused(&driver).await?.testid == "archive-list",
                    "Enter on Archive did not focus its list"
                );
                let rows = driver.find_all(ui::tid("archive-version")).await?;
                let mut order = Vec::new();
                for r in &rows {
                    order.push((
                        r.attr("data-name").await?.unwrap_or_default(),
                        r.attr("data-version").await?.unwrap_or_default(),
                    ));
                }
                ensure!(order.len() == 4, "archived rows: {order:?}");
                for (step, want) in order.iter().enumerate() {
                    press(&driver, Key::Down).await?;
                    let want = want.clone();
                    ui::eventually(
                        &format!("↓ #{step} to select row {step} ({want:?})"),
                        || {
                            let want = want.clone();
                            let driver = driver.clone();
                            async move {
                                let sel = driver
                                    .find(ui::css(
                                        "[data-testid=\"archive-version\"][data-selected=\"true\"]",
                                    ))
                                    .await?;
                                let got = (
                                    sel.attr("data-name").await?.unwrap_or_default(),
                                    sel.attr("data-version").await?.unwrap_or_default(),
                                );
                                Ok((got == want).then_some(()))
                            }
                        },
                    )
                    .await?;
                }
                let f = focused(&driver).await?;
                ensure!(
                    f.activedescendant.starts_with("archive-option-beta-notes-"),
                    "archive aria-activedescendant: {:?}",
                    f.activedescendant
                );
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn folded_tool_calls_are_one_tab_stop_moved_with_arrows() -> TestResult {
    let sandbox = Sandbox::new()?;
    let turns: Vec<(&str, &str)> = vec![
        ("user", "List the files and read the config."),
        (
            "tool",
            "Bash {\"command\":\"ls -la\",\"description\":\"List files\"}",
        ),
        ("tool", "Read {\"file_path\":\"/repo/config.toml\"}"),
        ("tool", "Grep {\"pattern\":\"timeout\"}"),
        ("assistant", "The timeout is 30 s."),
    ];
    sandbox.write_session(
        "tools-session",
        "Reading the config",
        &sandbox.user_home,
        &turns,
    )?;
    sandbox
        .run(
            "folded_tool_calls_are_one_tab_stop_moved_with_arrows",
            |driver| async move {
                ui::ready(&driver).await?;
                ui::click(&driver, "nav-sessions").await?;
                ui::click_on(
                    &driver,
                    ui::css("[data-testid=\"session-row\"][data-session-id=\"tools-session\"]"),
                    "the session",
                )
                .await?;
                ui::text_contains(&driver, "transcript-title", "Reading the config").await?;
                // The three consecutive calls are one fold, itself the one Tab stop.
                let summaries = driver
                    .find_all(ui::css(
                        "[data-testid=\"transcript-view\"] details > summary",
                    ))
                    .await?;
                ensure!(
                    summaries.len() == 4,
                    "{} folds (the group and its 3 tool turns)",
                    summaries.len()
                );
                let mut stops = 0;
                for s in &summaries {
                    if s.attr("tabindex").await?.as_deref() == Some("0") {
                        stops += 1;
                    }
                }
                ensure!(
                    stops == 1,
                    "{stops} of the folded tool turns are Tab stops; one is"
                );
                let group = summaries[0].text().await?;
                ensure!(
                    group.starts_with("3 tool calls") && group.contains("Bash, Read, Grep"),
                    "the group's summary: {group:?}"
                );
                summaries[0].focus().await?;
                press(&driver, Key::Enter).await?;
                press(&driver, Key::Down).await?;
                // Readable, not JSON: the tool's name and its arguments.
                let first = driver
                    .execute("return document.activeElement.textContent;", vec![])
                    .await?;
                let first = first.json().as_str().unwrap_or_default().to_string();
                ensure!(
                    first.starts_with("Bash · ls -la"),
                    "↓ into the opened group: {first:?}"
                );
                ensure!(
                    !first.contains('{'),
                    "the summary shows raw JSON: {first:?}"
                );
                press(&driver, Key::Down).await?;
                let f = focused(&driver).await?;
                ensure!(
                    f.tag == "SUMMARY" && f.ring,
                    "↓ from the first tool call: {f:?}"
                );
                let text = driver
                    .execute("return document.activeElement.textContent;", vec![])
                    .await?;
                ensure!(
                    text.json()
                        .as_str()
                        .is_some_and(|t| t.starts_with("Read · /repo/config.toml")),
                    "↓ did not reach the second tool call: {:?}",
                    text.json()
                );
                // Tab leaves the group: the next stop is past every tool call.
                press(&driver, Key::Tab).await?;
                let f = focused(&driver).await?;
                ensure!(f.tag != "SUMMARY", "Tab went to another tool call: {f:?}");
                Ok(())
            },
        )
        .await
}
