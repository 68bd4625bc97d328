//! Settings keep config.toml whole and follow it: a number field shows its whole value
//! (200000 is not clipped), the header's *Create config.toml* becomes *Open config.toml* once a
//! saved setting created the file (from the starter, which has every section), an edit of the
//! file on disk shows in the open view, and a setting saved into a section the file lacks
//! never lands between a table and its commented lines.

use std::path::Path;

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::resize;
use crate::seed::Sandbox;
use crate::ui::{self, click, testid};

fn setting(key: &str) -> By {
    ui::css(&format!("[data-testid=\"setting\"][data-key=\"{key}\"]"))
}

/// Replaces `key`'s number as a person would (select all, type, Enter) and waits for "Saved".
async fn save_setting(driver: &WebDriver, key: &str, text: &str) -> TestResult {
    let row = ui::shown(driver, setting(key), key).await?;
    let input = row.find(By::Css("[data-testid=\"setting-input\"]")).await?;
    driver
        .execute(
            "arguments[0].scrollIntoView({block: 'center'});",
            vec![input.to_json()?],
        )
        .await?;
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
    ui::eventually(&format!("{key} saved"), || async {
        Ok((row.attr("data-saved").await?.as_deref() == Some("true")).then_some(()))
    })
    .await
}

/// The value `key`'s field shows.
async fn shown_value(driver: &WebDriver, key: &str) -> TestResult<String> {
    let row = driver.find(setting(key)).await?;
    ui::value_of(&row.find(By::Css("[data-testid=\"setting-input\"]")).await?).await
}

/// Each number field whose value is wider than the room it has for text (its content box less
/// the spin buttons), as `key: value`.
async fn clipped_numbers(driver: &WebDriver) -> TestResult<Vec<String>> {
    let v = driver
        .execute(
            r#"const canvas = document.createElement('canvas').getContext('2d');
               return [...document.querySelectorAll('[data-testid="setting"] input[type="number"]')].flatMap((input) => {
                 const style = getComputedStyle(input);
                 canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
                 const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
                 const needs = canvas.measureText(input.value).width;
                 return needs > room ? [`${input.closest('[data-key]').dataset.key}: ${input.value} needs ${needs.toFixed(0)} px, has ${room.toFixed(0)}`] : [];
               });"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

fn config_text(home: &Path) -> String {
    std::fs::read_to_string(home.join("config.toml")).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn settings_create_the_file_follow_it_on_disk_and_keep_its_commented_lines() -> TestResult {
    let sandbox = Sandbox::new()?;
    let home = sandbox.home.clone();
    sandbox
        .run("settings_create_the_file_follow_it_on_disk_and_keep_its_commented_lines", |driver| async move {
            ui::ready(&driver).await?;
            resize(&driver, 1280, 800).await?;
            click(&driver, "nav-settings").await?;
            testid(&driver, "settings-config").await?;
            let open = testid(&driver, "settings-open-config").await?;
            ensure!(open.text().await? == "Create config.toml", "no file, yet the header says {:?}", open.text().await?);
            ensure!(shown_value(&driver, "distill.max_tokens").await? == "200000", "max_tokens is not its default");
            let clipped = clipped_numbers(&driver).await?;
            ensure!(clipped.is_empty(), "number fields clip their values: {clipped:?}");

            // A saved setting creates the file from the starter; the header follows at once.
            save_setting(&driver, "archive.keep_versions", "5").await?;
            ui::eventually("the header's Open config.toml", || async {
                Ok((testid(&driver, "settings-open-config").await?.text().await? == "Open config.toml").then_some(()))
            })
            .await?;
            let text = config_text(&home);
            for table in ["[retrieval]", "[compose]", "[archive]", "[sessions]", "[lifecycle]", "[distill]", "[sync]", "[editor]"] {
                ensure!(text.matches(table).count() == 1, "{table} is not in the created file once:\n{text}");
            }
            ensure!(text.contains("[archive]\nkeep_versions = 5\n"), "keep_versions is not under [archive]:\n{text}");
            ensure!(text.contains("# enabled = true            # false: agents get only the trust anchors and the memory map, no bodies"), "the retrieval.enabled comment:\n{text}");

            // An edit by hand shows in the open view, no reload.
            let by_hand = "[archive]\nkeep_versions = 7\n\n[editor]\n# command = \"\"   # e.g. code -g {path}\n";
            std::fs::write(home.join("config.toml"), by_hand)?;
            ui::eventually("the field showing the file's 7", || async {
                Ok((shown_value(&driver, "archive.keep_versions").await? == "7").then_some(()))
            })
            .await?;

            // A setting of a section the file lacks goes after [editor]'s commented line.
            save_setting(&driver, "distill.max_calls", "3").await?;
            let text = config_text(&home);
            ensure!(text == format!("{by_hand}\n[distill]\nmax_calls = 3\n"), "the file is now:\n{text}");
            capture(&driver, "settings-file").await?;
            resize(&driver, 720, 480).await?;
            let clipped = clipped_numbers(&driver).await?;
            ensure!(clipped.is_empty(), "number fields clip their values at 720×480: {clipped:?}");
            capture(&driver, "settings-file-small").await?;
            Ok(())
        })
        .await
}
