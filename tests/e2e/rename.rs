//! Renaming a memory in the app, keyboard only: its archived history, the [[links]] to it in
//! other memories and the retrieval tests naming it all follow the new name (DESIGN §14), as
//! `ambry memory rename` does.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{focus_on, focused, press};
use crate::seed::Sandbox;
use crate::ui;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_rename_by_keyboard_moves_history_links_and_retrieval_tests() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("deploy", "project", "How we ship", "Blue-green, v1.")?;
    sandbox.save_user("deploy", "project", "How we ship", "Blue-green, v2.")?;
    sandbox.save_user("notes", "reference", "Notes", "See [[deploy]] first.")?;
    let versions_before = sandbox.archive_of(None, "deploy")?.len();
    ensure!(versions_before >= 1, "the seed left no archived version");
    let cases = sandbox
        .user_memory_file("deploy")
        .with_file_name("tests.toml");
    std::fs::write(
        &cases,
        "# kept\n[[case]]\nprompt = \"ship\"\nexpect = [\"deploy\"]\n",
    )?;
    let (old, new) = (
        sandbox.user_memory_file("deploy"),
        sandbox.user_memory_file("release-process"),
    );
    let notes = sandbox.user_memory_file("notes");
    sandbox
        .run(
            "a_rename_by_keyboard_moves_history_links_and_retrieval_tests",
            move |driver| async move {
                ui::ready(&driver).await?;
                focus_on(&driver, "nav-user").await?;
                press(&driver, Key::Enter).await?;
                ui::text_contains(&driver, "memories-title", "User memories").await?;
                let mut shown = String::new();
                for _ in 0..4 {
                    press(&driver, Key::Down).await?;
                    let before = shown.clone();
                    shown = ui::eventually("the detail pane to show the next memory", || {
                        let (driver, before) = (driver.clone(), before.clone());
                        async move {
                            let Ok(name) = driver.find(ui::tid("detail-name")).await else {
                                return Ok(None);
                            };
                            let name = name.text().await.unwrap_or_default().trim().to_string();
                            Ok((!name.is_empty() && name != before).then_some(name))
                        }
                    })
                    .await?;
                    if shown == "deploy" {
                        break;
                    }
                }
                ensure!(
                    shown.trim() == "deploy",
                    "↓ never reached deploy: {shown:?}"
                );
                let mut on_rename = false;
                for _ in 0..25 {
                    press(&driver, Key::Tab).await?;
                    if focused(&driver).await?.testid == "detail-rename" {
                        on_rename = true;
                        break;
                    }
                }
                ensure!(on_rename, "Tab never reached Rename");
                press(&driver, Key::Enter).await?;
                let input = ui::testid(&driver, "rename-input").await?;
                ensure!(
                    focused(&driver).await?.testid == "rename-input",
                    "the new name field has no focus"
                );
                ensure!(
                    ui::value_of(&input).await? == "deploy",
                    "the field starts from the old name"
                );
                // The old name is selected: typing replaces it.
                driver
                    .action_chain()
                    .send_keys("release-process")
                    .perform()
                    .await?;
                press(&driver, Key::Enter).await?;
                ui::eventually("the memory under its new name", || {
                    let (old, new) = (old.clone(), new.clone());
                    async move { Ok((new.exists() && !old.exists()).then_some(())) }
                })
                .await?;
                ui::text_contains(&driver, "detail-name", "release-process").await?;
                Ok(())
            },
        )
        .await?;
    let moved = sandbox.archive_of(None, "release-process")?.len();
    ensure!(
        moved > versions_before,
        "history: {moved} version(s) under the new name; the {versions_before} before and the renamed one expected"
    );
    ensure!(
        sandbox.archive_of(None, "deploy")?.is_empty(),
        "versions left under the old name"
    );
    let linked = std::fs::read_to_string(&notes)?;
    ensure!(
        linked.contains("[[release-process]]") && !linked.contains("[[deploy]]"),
        "the link: {linked}"
    );
    let tests = std::fs::read_to_string(&cases)?;
    ensure!(
        tests.contains("\"release-process\"") && !tests.contains("\"deploy\""),
        "the case: {tests}"
    );
    ensure!(
        tests.starts_with("# kept"),
        "the cases file lost its comment: {tests}"
    );
    Ok(())
}
