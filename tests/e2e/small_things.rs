//! Small things a person notices: the compose preview tags each memory with where it lives, says
//! there is no session to continue rather than showing a new context's figures, and lists the
//! sessions the ledger alone knows; *Save as memory* starts from the answer; a restore in the
//! Archive keeps the restored version selected; Alt+← and Alt+→ go back and forward through the
//! views and the memories chosen in them.

use std::io::Write;

use thirtyfour::components::SelectElement;
use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{focus_on, press};
use crate::search::press_ctrl_k;
use crate::seed::Sandbox;
use crate::ui::{self, css, testid, text_contains};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_compose_preview_tags_a_memory_with_its_scope() -> TestResult {
    let sandbox = Sandbox::new()?;
    // A user memory of type "project": its tag must say where it lives, not its type.
    sandbox.save_user(
        "deploy-steps",
        "project",
        "How to deploy",
        "Run make deploy.\n",
    )?;
    sandbox.save_user(
        "db-migrations",
        "feedback",
        "Database migrations",
        "Use sqlx migrate.\n",
    )?;
    sandbox
        .run(
            "the_compose_preview_tags_a_memory_with_its_scope",
            |driver| async move {
                ui::open_compose(&driver).await?;
                testid(&driver, "compose-prompt")
                    .await?
                    .send_keys("how do I deploy")
                    .await?;
                let block = text_contains(&driver, "compose-output", "Run make deploy.").await?;
                ensure!(
                    block.contains("### deploy-steps [user]") && !block.contains("[project]"),
                    "the block tags the memory:\n{block}"
                );
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_later_turn_without_a_session_says_there_is_none_to_continue() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "deploy-steps",
        "project",
        "How to deploy",
        "Run make deploy.\n",
    )?;
    sandbox
        .run(
            "a_later_turn_without_a_session_says_there_is_none_to_continue",
            |driver| async move {
                ui::open_compose(&driver).await?;
                testid(&driver, "compose-prompt")
                    .await?
                    .send_keys("how do I deploy")
                    .await?;
                text_contains(&driver, "compose-total", "new context").await?;
                SelectElement::new(&testid(&driver, "compose-moment").await?)
                    .await?
                    .select_by_value("turn")
                    .await?;
                text_contains(&driver, "compose-empty", "No session to continue").await?;
                let total = text_contains(&driver, "compose-total", "no session chosen").await?;
                ensure!(
                    !total.contains("new context"),
                    "a later turn shows a new context's figures: {total:?}"
                );
                let sections = ui::texts(&driver, ui::tid("compose-section")).await?;
                ensure!(
                    sections.is_empty(),
                    "sections of a context that is not there: {sections:?}"
                );
                let given = ui::texts(&driver, ui::tid("compose-selected-memory")).await?;
                ensure!(given.is_empty(), "memories given to no session: {given:?}");
                capture(&driver, "compose-no-session").await?;
                Ok(())
            },
        )
        .await
}

/// A session the real hook composed for, whose transcript Ambry never indexed: the ledger alone
/// knows it, and the later turn's picker lists it.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_session_only_the_ledger_knows_is_offered_for_a_later_turn() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "deploy-steps",
        "project",
        "How to deploy",
        "Run make deploy.\n",
    )?;
    let session = "5e55104e-e2e0-4c0e-9a7e-00000000c0de";
    let payload = serde_json::json!({
        "session_id": session,
        "cwd": sandbox.user_home,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "how do I deploy",
    });
    let mut hook = sandbox
        .ambry(&sandbox.user_home)?
        .args(["compose", "--hook", "claude"])
        .env("AMBRY_NO_SERVICE", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    hook.stdin
        .take()
        .ok_or("no stdin")?
        .write_all(payload.to_string().as_bytes())?;
    ensure!(hook.wait_with_output()?.status.success(), "the hook failed");
    sandbox
        .run(
            "a_session_only_the_ledger_knows_is_offered_for_a_later_turn",
            move |driver| async move {
                ui::open_compose(&driver).await?;
                SelectElement::new(&testid(&driver, "compose-moment").await?)
                    .await?
                    .select_by_value("turn")
                    .await?;
                let option = format!("#compose-session-list option[value=\"{session}\"]");
                let offered = ui::eventually("the ledger's session in the picker", || {
                    let (driver, option) = (&driver, &option);
                    async move { Ok(driver.find_all(css(option)).await?.into_iter().next()) }
                })
                .await?;
                ensure!(
                    offered.attr("data-ledger").await?.as_deref() == Some("true")
                        && offered.attr("data-indexed").await?.as_deref() == Some("false"),
                    "the option: ledger {:?}, indexed {:?}",
                    offered.attr("data-ledger").await?,
                    offered.attr("data-indexed").await?
                );
                let label = offered.prop("textContent").await?.unwrap_or_default();
                ensure!(label.contains("not indexed"), "the option reads {label:?}");
                testid(&driver, "compose-session")
                    .await?
                    .send_keys(session)
                    .await?;
                text_contains(&driver, "compose-session-info", "only what this turn adds").await?;
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn save_as_memory_starts_from_the_answer() -> TestResult {
    let sandbox = Sandbox::new()?;
    let answer = "Rotate them with `vault rotate`; the old key stays valid for a week.";
    sandbox.write_session(
        "keys-rotation",
        "Rotating signing keys",
        &sandbox.user_home,
        &[
            ("user", "How do we rotate the signing keys?"),
            ("assistant", answer),
        ],
    )?;
    sandbox
        .run(
            "save_as_memory_starts_from_the_answer",
            move |driver| async move {
                ui::ready(&driver).await?;
                ui::open_session(&driver, "keys-rotation", "Rotating signing keys").await?;
                ui::click(&driver, "transcript-save").await?;
                let body = testid(&driver, "passage-body").await?;
                let text = ui::value_of(&body).await?;
                ensure!(
                    text == answer,
                    "Save as memory starts from {text:?}, not the answer"
                );
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_restore_keeps_the_restored_version_selected() -> TestResult {
    let sandbox = Sandbox::new()?;
    let t0: chrono::DateTime<chrono::Utc> = "2026-11-01T10:00:00Z".parse()?;
    for (i, body) in ["first take\n", "second take\n", "third take\n"]
        .iter()
        .enumerate()
    {
        sandbox.save_user_at(
            "release-notes",
            "project",
            "How release notes are written",
            body,
            t0 + chrono::Duration::minutes(i as i64),
        )?;
    }
    let versions = sandbox.user_archive("release-notes")?;
    ensure!(versions.len() == 2, "two archived versions: {versions:?}");
    sandbox
        .run("a_restore_keeps_the_restored_version_selected", |driver| async move {
            ui::open_archive(&driver).await?;
            let rows = ui::texts_until(&driver, ui::tid("archive-version"), "both versions", |r| r.len() == 2).await?;
            ensure!(rows.len() == 2, "{rows:?}");
            // The older one (listed second: newest first).
            let older = driver.find_all(ui::tid("archive-version")).await?.remove(1);
            let version = older.attr("data-version").await?.unwrap_or_default();
            older.click().await?;
            text_contains(&driver, "archive-diff-summary", "lines").await?;
            ui::click(&driver, "archive-restore").await?;
            ui::click(&driver, "confirm-ok").await?;
            let chosen = format!("[data-testid=\"archive-version\"][data-version=\"{version}\"][data-selected=\"true\"]");
            ui::texts_until(&driver, ui::tid("archive-version"), "the version the restore archived", |r| r.len() == 3).await?;
            ui::shown(&driver, css(&chosen), "the restored version still selected").await?;
            text_contains(&driver, "archive-diff", "Identical to the current file").await?;
            Ok(())
        })
        .await
}

async fn alt(driver: &WebDriver, key: Key) -> TestResult {
    driver
        .action_chain()
        .key_down(Key::Alt)
        .send_keys(key)
        .key_up(Key::Alt)
        .perform()
        .await?;
    Ok(())
}

/// User memories is the active view and its detail pane shows `name`.
async fn showing(driver: &WebDriver, name: &str) -> TestResult {
    ui::shown(
        driver,
        css("[data-testid=\"nav-user\"][data-active=\"true\"]"),
        "User memories to be the active view",
    )
    .await?;
    ui::eventually(&format!("the detail pane to show {name}"), || async move {
        let heading = driver.find(ui::tid("detail-name")).await?.text().await?;
        Ok((heading.trim() == name).then_some(()))
    })
    .await
}

async fn settings_active(driver: &WebDriver) -> TestResult {
    ui::shown(
        driver,
        css("[data-testid=\"nav-settings\"][data-active=\"true\"]"),
        "Settings to be the active view",
    )
    .await?;
    testid(driver, "settings-view").await?;
    Ok(())
}

/// Alt+← and Alt+→, by keyboard alone: views and the memories chosen in them.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn alt_arrows_go_back_and_forward_through_views_and_selections() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "alpha-notes",
        "project",
        "Alpha release checklist",
        "Tag, build, ship.\n",
    )?;
    sandbox.save_user(
        "beta-notes",
        "project",
        "Beta programme sign-ups",
        "Invite by email.\n",
    )?;
    sandbox
        .run(
            "alt_arrows_go_back_and_forward_through_views_and_selections",
            |driver| async move {
                ui::ready(&driver).await?;
                // User memories, ↓ to the first memory.
                focus_on(&driver, "nav-user").await?;
                press(&driver, Key::Enter).await?;
                ui::rows_until(&driver, "both memories", |r| r.len() == 2).await?;
                focus_on(&driver, "memory-list").await?;
                press(&driver, Key::Down).await?;
                showing(&driver, "alpha-notes").await?;
                // The other one from search (Ctrl+Enter shows it in the app).
                press_ctrl_k(&driver).await?;
                testid(&driver, "search-input")
                    .await?
                    .send_keys("beta programme")
                    .await?;
                ui::shown(
                    &driver,
                    css("[data-testid=\"search-result\"][data-name=\"beta-notes\"]"),
                    "the hit",
                )
                .await?;
                driver
                    .action_chain()
                    .key_down(Key::Control)
                    .send_keys(Key::Enter)
                    .key_up(Key::Control)
                    .perform()
                    .await?;
                showing(&driver, "beta-notes").await?;
                // Settings, from the sidebar.
                focus_on(&driver, "nav-settings").await?;
                press(&driver, Key::Enter).await?;
                settings_active(&driver).await?;

                alt(&driver, Key::Left).await?;
                showing(&driver, "beta-notes").await?;
                alt(&driver, Key::Left).await?;
                showing(&driver, "alpha-notes").await?;
                alt(&driver, Key::Right).await?;
                showing(&driver, "beta-notes").await?;
                alt(&driver, Key::Right).await?;
                settings_active(&driver).await?;
                // Nothing further forward: it stays.
                alt(&driver, Key::Right).await?;
                settings_active(&driver).await?;
                Ok(())
            },
        )
        .await
}
