//! Settings a person can change: each key of config.toml is a labelled control with what it
//! does and its default; a change is written back into config.toml (the starter's comments
//! kept) and takes effect without a restart (here: the editor command, used by the very next
//! "Open in editor"); a refused value says why and leaves the file alone; the Archive shows its
//! prune policy by its values and changes it in place.

use std::path::Path;

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, click, testid};

fn setting(key: &str) -> By {
    ui::css(&format!("[data-testid=\"setting\"][data-key=\"{key}\"]"))
}

/// Replaces the text of `key`'s field as a person would (select all, type, Enter) and waits
/// for the outcome: "Saved", or the reason it was refused.
async fn type_setting(driver: &WebDriver, key: &str, text: &str) -> TestResult<WebElement> {
    let row = ui::shown(driver, setting(key), key).await?;
    let input = row.find(By::Css("[data-testid=\"setting-input\"]")).await?;
    input.click().await?;
    driver
        .action_chain()
        .key_down(Key::Control)
        .send_keys("a")
        .key_up(Key::Control)
        .send_keys(text)
        .send_keys(Key::Enter)
        .perform()
        .await?;
    Ok(row)
}

async fn saved(row: &WebElement, what: &str) -> TestResult {
    ui::eventually(what, || async {
        Ok((row.attr("data-saved").await?.as_deref() == Some("true")).then_some(()))
    })
    .await
}

fn config_text(home: &Path) -> String {
    std::fs::read_to_string(home.join("config.toml")).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_setting_changed_in_the_app_is_written_back_and_used_at_once() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("deploy-steps", "project", "How we ship", "make release\n")?;
    sandbox.run_ambry(
        &sandbox.user_home,
        &[
            "memory",
            "save",
            "deploy-steps",
            "--type",
            "project",
            "--description",
            "How we ship",
            "--body",
            "make release v2\n",
        ],
    )?;
    let opened = sandbox.user_home.join("opened.txt");
    let editor = sandbox.user_home.join("my-editor");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n",
            opened.display()
        ),
    )?;
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let (home, file) = (
        sandbox.home.clone(),
        sandbox.user_memory_file("deploy-steps"),
    );
    sandbox
        .run(
            "a_setting_changed_in_the_app_is_written_back_and_used_at_once",
            move |driver| async move {
                click(&driver, "nav-settings").await?;
                testid(&driver, "settings-config").await?;
                // Each key says what it does and its default.
                let top_k = ui::shown(&driver, setting("retrieval.top_k"), "top_k").await?;
                let words = top_k.text().await?;
                ensure!(
                    words.contains("Results per search") && words.contains("Default: 10"),
                    "top_k reads {words:?}"
                );

                // A refused value: the reason shows, the file is not written.
                let row = type_setting(&driver, "retrieval.top_k", "0").await?;
                let error = ui::eventually("the refusal", || async {
                    let e = row.find(By::Css("[data-testid=\"setting-error\"]")).await?;
                    Ok(e.is_displayed().await?.then_some(e))
                })
                .await?;
                let reason = error.text().await?;
                ensure!(
                    reason.contains("between 1 and 1000"),
                    "the refusal says {reason:?}"
                );
                ensure!(
                    config_text(&home).is_empty(),
                    "a refused value was written: {}",
                    config_text(&home)
                );

                // The editor command: written into a new config.toml beside the starter's comments.
                let command = format!("{} --line 1 {{path}}", editor.display());
                let row = type_setting(&driver, "editor.command", &command).await?;
                saved(&row, "the editor command to be saved").await?;
                let text = config_text(&home);
                ensure!(
                    text.contains("# Ambry configuration."),
                    "the starter's comments are gone: {text}"
                );
                ensure!(
                    text.contains(&format!("command = \"{command}\"")),
                    "config.toml says: {text}"
                );

                // Used by the next "Open in editor", no restart.
                ui::open_user_memories(&driver).await?;
                ui::open_memory(&driver, "deploy-steps").await?;
                click(&driver, "detail-open-editor").await?;
                let seen = ui::eventually("the configured editor to start", || {
                    let opened = opened.clone();
                    async move {
                        Ok(std::fs::read_to_string(&opened)
                            .ok()
                            .filter(|s| !s.is_empty()))
                    }
                })
                .await?;
                ensure!(
                    seen.lines().collect::<Vec<_>>()
                        == ["--line", "1", file.to_str().unwrap_or_default()],
                    "the editor got {seen:?}"
                );

                // The Archive names its policy by its values and changes it in place.
                ui::open_archive(&driver).await?;
                let policy =
                    ui::shown(&driver, ui::tid("archive-policy"), "the prune policy").await?;
                ui::eventually("the policy's values", || async {
                    Ok(policy
                        .text()
                        .await?
                        .contains("Versions kept per memory")
                        .then_some(()))
                })
                .await?;
                let row = type_setting(&driver, "archive.keep_versions", "3").await?;
                saved(&row, "the policy to be saved").await?;
                let text = config_text(&home);
                ensure!(
                    text.contains("keep_versions = 3"),
                    "config.toml says: {text}"
                );
                ensure!(
                    text.contains(&format!("command = \"{command}\"")),
                    "the editor command was lost: {text}"
                );
                Ok(())
            },
        )
        .await
}
