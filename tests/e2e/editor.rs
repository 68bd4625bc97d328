//! "Open in editor" with a terminal editor (`VISUAL=vim`): it runs inside a terminal emulator
//! (here `$TERMINAL`, a stand-in that records its command line and stays open like a real
//! one), and the app reports success only once that really started; a terminal that quits at
//! once is reported as a failure with what it said, never as "Opened".

use std::path::{Path, PathBuf};

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::search::press_ctrl_k;
use crate::seed::Sandbox;
use crate::ui::{self, click, testid};

/// An executable shell script at `path`.
fn script(path: &Path, body: &str) -> TestResult {
    std::fs::write(path, format!("#!/bin/sh\n{body}"))?;
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    Ok(())
}

/// The newest toast's kind and text, once one whose text contains `needle` shows.
async fn toast_with(driver: &WebDriver, needle: &str) -> TestResult<(String, String)> {
    ui::eventually(&format!("a notification saying {needle:?}"), || async {
        for toast in driver.find_all(ui::tid("toast")).await? {
            let text = toast.find(By::Css(".toast-message")).await?.text().await?;
            if text.contains(needle) {
                let kind = toast.attr("data-kind").await?.unwrap_or_default();
                return Ok(Some((kind, text)));
            }
        }
        Ok(None)
    })
    .await
}

fn sandbox_with_memory() -> TestResult<(Sandbox, PathBuf)> {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "db-migrations",
        "project",
        "How schema migrations are rolled back",
        "Every migration has a down step.\n",
    )?;
    let file = sandbox.user_memory_file("db-migrations");
    Ok((sandbox, file))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn enter_in_search_runs_a_terminal_editor_inside_the_persons_terminal() -> TestResult {
    let (sandbox, file) = sandbox_with_memory()?;
    let recorded = sandbox.user_home.join("terminal-args.txt");
    let terminal = sandbox.user_home.join("my-term");
    // A terminal emulator stays open while its editor runs.
    script(
        &terminal,
        &format!(
            "printf '%s\\n' \"$@\" > '{}'\nexec sleep 5\n",
            recorded.display()
        ),
    )?;
    let vim = PathBuf::from("vim");
    sandbox
        .run_with_env(
            "enter_in_search_runs_a_terminal_editor_inside_the_persons_terminal",
            &[("VISUAL", &vim), ("TERMINAL", &terminal)],
            move |driver| async move {
                ui::open_user_memories(&driver).await?;
                press_ctrl_k(&driver).await?;
                let input = testid(&driver, "search-input").await?;
                input.send_keys("roll back a migration").await?;
                ui::shown(
                    &driver,
                    ui::css("[data-testid=\"search-result\"][data-name=\"db-migrations\"]"),
                    "the memory among the results",
                )
                .await?;
                input.send_keys(Key::Enter).await?;
                let (kind, text) = toast_with(&driver, "Opened db-migrations").await?;
                ensure!(
                    kind != "error" && text.contains("vim in") && text.contains("my-term"),
                    "the toast says {text:?} ({kind})"
                );
                let args = std::fs::read_to_string(&recorded)?;
                ensure!(
                    args.lines().collect::<Vec<_>>()
                        == ["-e", "vim", file.to_str().unwrap_or_default()],
                    "the terminal was asked to run {args:?}"
                );
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn an_editor_whose_terminal_quits_at_once_is_reported_as_not_opened() -> TestResult {
    let (sandbox, _) = sandbox_with_memory()?;
    let terminal = sandbox.user_home.join("broken-term");
    script(
        &terminal,
        "echo 'broken-term: cannot open display' >&2\nexit 1\n",
    )?;
    let vim = PathBuf::from("vim");
    sandbox
        .run_with_env(
            "an_editor_whose_terminal_quits_at_once_is_reported_as_not_opened",
            &[("VISUAL", &vim), ("TERMINAL", &terminal)],
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                ui::open_memory(&driver, "db-migrations").await?;
                click(&driver, "detail-open-editor").await?;
                let (kind, text) = toast_with(&driver, "Could not open the editor").await?;
                ensure!(kind == "error", "the failure is shown as {kind}: {text:?}");
                for toast in driver.find_all(ui::tid("toast")).await? {
                    let text = toast.text().await?;
                    ensure!(!text.contains("Opened"), "success was claimed: {text:?}");
                }
                let toast = driver
                    .find(ui::css("[data-testid=\"toast\"][data-kind=\"error\"]"))
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
                    details.contains("cannot open display") && details.contains("vim"),
                    "the details do not say what the terminal said: {details:?}"
                );
                Ok(())
            },
        )
        .await
}
