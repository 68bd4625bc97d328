//! The palette as a door to places and actions, by keyboard: a place or action named exactly
//! (`USER.md`, `CLAUDE.md`, `Settings`, `codex`) is listed first and highlighted, memories
//! below the relevance gate come last under a heading of their own (never above a place, an
//! action or a session), the added commands (*Connect Codex*, *Prune archive…*) run; and
//! Enter on a memory with no editor set up and no desktop application for it opens the
//! memory in the app's own editor and says so, instead of an error over a palette left open
//! (and *Open config.toml* creates the file and says where an editor is chosen).

use std::path::{Path, PathBuf};

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{focused, press, press_ctrl, resize};
use crate::seed::Sandbox;
use crate::ui::{self, testid};

/// The palette's rows in order: `(testid, key or memory name, gated)` for each option, and
/// `("search-weak", count, "")` for the weak matches' heading.
async fn rows(driver: &WebDriver) -> TestResult<Vec<(String, String, String)>> {
    let v = driver
        .execute(
            r#"return [...document.querySelectorAll('[data-testid="search-results"] [role="option"], [data-testid="search-weak"]')].map((el) => {
                 const score = el.querySelector('[data-testid="search-result-score"]');
                 return [el.dataset.testid || '', el.dataset.key || el.dataset.name || el.dataset.count || '',
                         score ? score.dataset.gated : ''];
               });"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

/// Types `query` into a fresh palette and waits until the answer to it is on screen with
/// `first` (a palette item's key) as its first row.
async fn ask(
    driver: &WebDriver,
    query: &str,
    first: &str,
) -> TestResult<Vec<(String, String, String)>> {
    let input = testid(driver, "search-input").await?;
    ui::fill(&input, query).await?;
    ui::eventually(&format!("{first} first for {query:?}"), || async {
        let answered = driver
            .execute("const s = document.querySelector('[data-testid=\"search-status\"]'); return s ? (s.dataset.query || '') : '';", vec![])
            .await?;
        if answered.json().as_str() != Some(query) {
            return Ok(None);
        }
        let rows = rows(driver).await?;
        Ok(rows.first().filter(|r| r.1 == first).map(|_| rows.clone()))
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn named_places_and_actions_come_first_and_weak_matches_last_under_their_heading(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "codex-hooks",
        "project",
        "How Codex runs Ambry's hooks",
        "Codex runs a hook only once it is trusted.\n",
    )?;
    // Each mentions the word once, deep in a long unrelated body: below the gate.
    for i in 0..4 {
        sandbox.save_user(
            &format!("release-notes-{i}"),
            "project",
            &format!("What shipped in month {i}"),
            &format!(
                "{} codex once.\n",
                "unrelated filler text about the billing page. ".repeat(60)
            ),
        )?;
    }
    sandbox.save_user(
        "user-settings",
        "user",
        "Where the person keeps user settings",
        "Settings for the user live in settings.json; see USER.md.\n",
    )?;
    sandbox
        .run("named_places_and_actions_come_first_and_weak_matches_last_under_their_heading", |driver| async move {
            ui::ready(&driver).await?;
            resize(&driver, 1280, 800).await?;
            press_ctrl(&driver, "k").await?;

            // "codex": the Connect Codex action first, the memory about Codex next, and the four
            // weak mentions last, under their heading, after every place, action and session.
            let rows = ask(&driver, "codex", "connect-codex").await?;
            capture(&driver, "palette-codex").await?;
            resize(&driver, 720, 480).await?;
            capture(&driver, "palette-codex-small").await?;
            resize(&driver, 1280, 800).await?;
            ensure!(ui::palette_active(&driver).await?.1 == "connect-codex", "the highlight is not on Connect Codex: {rows:?}");
            let weak_heading = rows.iter().position(|r| r.0 == "search-weak");
            let weak: Vec<usize> = rows.iter().enumerate().filter(|(_, r)| r.0 == "search-result" && r.2 == "false").map(|(i, _)| i).collect();
            ensure!(weak.len() == 4, "expected the 4 weak mentions: {rows:?}");
            let heading = weak_heading.ok_or_else(|| format!("no heading over the weak matches: {rows:?}"))?;
            ensure!(rows[heading].1 == "4", "the heading does not count the 4 weak matches: {rows:?}");
            ensure!(weak.iter().all(|&i| i > heading), "a weak match sits above its heading: {rows:?}");
            let last_place = rows.iter().rposition(|r| r.0 == "palette-item").unwrap_or(0);
            ensure!(heading > last_place, "a place or action is listed below the weak matches: {rows:?}");
            ensure!(rows.get(1).map(|r| r.1.as_str()) == Some("codex-hooks"), "the gated memory does not follow the exact action: {rows:?}");

            // Exact names of places win over the memories that mention them.
            let rows = ask(&driver, "USER.md", "user-md").await?;
            ensure!(ui::palette_active(&driver).await?.1 == "user-md", "USER.md is not highlighted: {rows:?}");
            ask(&driver, "CLAUDE.md", "agents-files").await?;
            let rows = ask(&driver, "Settings", "settings").await?;
            ensure!(rows.iter().any(|r| r.1 == "user-settings"), "the memory about settings is gone: {rows:?}");
            ask(&driver, "Sessions", "sessions").await?;
            ask(&driver, "sync", "sync-now").await?;

            // Enter on "Connect Codex": Settings, focus on Codex's own Connect button.
            ask(&driver, "codex", "connect-codex").await?;
            press(&driver, Key::Enter).await?;
            ui::eventually("focus on Codex's Connect", || async {
                let v = driver
                    .execute("const a = document.activeElement; const row = a && a.closest('[data-agent]'); return row && a.dataset.testid === 'agent-toggle' ? row.dataset.agent : '';", vec![])
                    .await?;
                Ok((v.json().as_str() == Some("codex")).then_some(()))
            })
            .await?;

            // "Prune archive…" runs the archive's prune (nothing is old enough here: it says so).
            press_ctrl(&driver, "k").await?;
            ask(&driver, "> prune", "prune-archive").await?;
            press(&driver, Key::Enter).await?;
            ui::eventually("the prune's answer", || async {
                let texts = ui::texts(&driver, ui::css("[data-testid=\"toast\"] .toast-message")).await?;
                Ok(texts.iter().any(|t| t.contains("Nothing to prune")).then_some(()))
            })
            .await?;
            ensure!(testid(&driver, "archive-prune").await?.is_displayed().await?, "Prune archive did not open the archive");
            Ok(())
        })
        .await
}

/// An executable at `dir/name` that records its arguments in `dir/name.args` and fails the way
/// a desktop opener does when no application is registered for the file.
fn failing_opener(dir: &Path, name: &str) -> TestResult {
    let path = dir.join(name);
    let record = dir.join(format!("{name}.args"));
    std::fs::write(
        &path,
        format!("#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\necho 'no application is registered for this file' >&2\nexit 4\n", record.display()),
    )?;
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn enter_with_no_editor_and_no_default_application_edits_the_memory_in_the_app() -> TestResult
{
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "db-migrations",
        "project",
        "How schema migrations are rolled back",
        "Every migration has a down step.\n",
    )?;
    // No editor.command, $VISUAL or $EDITOR (the harness removes them), and the desktop's
    // openers know no application for Markdown.
    let bin = sandbox.user_home.join("bin");
    std::fs::create_dir_all(&bin)?;
    failing_opener(&bin, "xdg-open")?;
    failing_opener(&bin, "gio")?;
    let path = PathBuf::from(format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    ));
    let asked = bin.join("xdg-open.args");
    let file = sandbox.user_memory_file("db-migrations");
    let config = sandbox.home.join("config.toml");
    sandbox
        .run_with_env(
            "enter_with_no_editor_and_no_default_application_edits_the_memory_in_the_app",
            &[("PATH", &path)],
            |driver| async move {
                ui::ready(&driver).await?;
                press_ctrl(&driver, "k").await?;
                let input = testid(&driver, "search-input").await?;
                input.send_keys("migrations").await?;
                ui::shown(
                    &driver,
                    ui::css("[data-testid=\"search-result\"][data-name=\"db-migrations\"]"),
                    "the memory in the palette",
                )
                .await?;
                press(&driver, Key::Enter).await?;
                // The app's own editor, on that memory, with the palette closed.
                let name =
                    ui::shown(&driver, ui::tid("form-name"), "the memory's edit form").await?;
                ensure!(
                    ui::value_of(&name).await? == "db-migrations",
                    "the form is not the memory's"
                );
                ensure!(
                    !driver
                        .find(ui::tid("search-overlay"))
                        .await?
                        .is_displayed()
                        .await?,
                    "the palette stayed open"
                );
                let said = ui::eventually("a notification about the app's editor", || async {
                    for toast in driver.find_all(ui::tid("toast")).await? {
                        let text = toast.find(By::Css(".toast-message")).await?.text().await?;
                        if text.contains("Ambry’s editor") {
                            return Ok(Some((
                                toast.attr("data-kind").await?.unwrap_or_default(),
                                text,
                            )));
                        }
                    }
                    Ok(None)
                })
                .await?;
                ensure!(
                    said.0 == "info",
                    "the fallback was reported as {:?}: {}",
                    said.0,
                    said.1
                );
                ensure!(
                    said.1.contains("Settings"),
                    "it does not say where an editor is chosen: {}",
                    said.1
                );
                let errors = driver
                    .find_all(ui::css("[data-testid=\"toast\"][data-kind=\"error\"]"))
                    .await?;
                ensure!(errors.is_empty(), "an error notification showed too");
                // The system default was asked first, with the memory's file.
                let args = std::fs::read_to_string(&asked)
                    .map_err(|e| format!("xdg-open was never asked: {e}"))?;
                ensure!(
                    args.trim() == file.display().to_string(),
                    "xdg-open was asked for {args:?}"
                );
                ensure!(
                    focused(&driver).await?.within("memory-form"),
                    "focus is not in the edit form: {:?}",
                    focused(&driver).await?
                );
                capture(&driver, "palette-no-editor").await?;

                // "Open config.toml" from the palette: Settings, the file created from the
                // starter, and, with nothing to open it in, where to choose an editor.
                press_ctrl(&driver, "k").await?;
                ask(&driver, "> config", "open-config").await?;
                press(&driver, Key::Enter).await?;
                ui::eventually("the note on choosing an editor", || async {
                    let texts =
                        ui::texts(&driver, ui::css("[data-testid=\"toast\"] .toast-message"))
                            .await?;
                    Ok(texts
                        .iter()
                        .any(|t| t.contains("config.toml") && t.contains("Editor command"))
                        .then_some(()))
                })
                .await?;
                ensure!(config.is_file(), "config.toml was not created");
                ui::eventually("the header's Open config.toml", || async {
                    Ok((testid(&driver, "settings-open-config")
                        .await?
                        .text()
                        .await?
                        == "Open config.toml")
                        .then_some(()))
                })
                .await?;
                Ok(())
            },
        )
        .await
}
