//! Review's actions as a person takes them, by keyboard: a merge opens with one memory's text
//! and the other's sentences it does not say beside it, marked, to add one by one — the merged
//! memory never says a sentence twice — with its description edited in the merge; a merge and a
//! supersede are each undone from their notification, every file back byte for byte; and a
//! pair's comparison marks only the words that differ, a sentence only one of them has
//! underlined rather than marked word by word; a duplicate that states one value two ways names
//! both ways in its note.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{focus_on, focused, press, press_ctrl, press_shift, resize};
use crate::review::{count_is, focused_finding, go_to, letter, shoot};
use crate::seed::Sandbox;
use crate::ui::{self, css, shown, testid};

const STYLE: &str = "Tests use real databases, never mocks. Each test cleans up its own rows. Fixtures live in tests/fixtures.\n";
const RULES: &str = "Tests use real databases, never mocks.\nEach test cleans up its own rows.\nRun them with cargo nextest.\n";

/// Moves focus to the first finding (Home on the list), whatever its kind; returns its names.
async fn first_finding(driver: &WebDriver) -> TestResult<Vec<String>> {
    let names = ui::eventually("a finding to have focus", || async move {
        Ok(focused_finding(driver).await?.map(|(_, names)| names))
    })
    .await?;
    press(driver, Key::Home).await?;
    Ok(focused_finding(driver).await?.map_or(names, |(_, n)| n))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_merge_offers_the_others_new_sentences_edits_the_description_and_undoes_by_keyboard(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("test-style", "feedback", "How tests are written", STYLE)?;
    sandbox.save_user(
        "test-rules",
        "feedback",
        "How tests are written here",
        RULES,
    )?;
    let style_file = sandbox.user_memory_file("test-style");
    let rules_file = sandbox.user_memory_file("test-rules");
    let originals = (
        std::fs::read_to_string(&style_file)?,
        std::fs::read_to_string(&rules_file)?,
    );
    let (style_at, rules_at) = (style_file.clone(), rules_file.clone());
    sandbox
        .run(
            "review_merge_offers_the_others_new_sentences_edits_the_description_and_undoes_by_keyboard",
            move |driver| async move {
                ui::ready(&driver).await?;
                count_is(&driver, 1).await?;
                resize(&driver, 720, 480).await?;
                focus_on(&driver, "sidebar-toggle").await?;
                press(&driver, Key::Enter).await?;
                crate::review::open(&driver).await?;
                let names = first_finding(&driver).await?;
                ensure!(names.len() == 2, "the finding names {names:?}");
                letter(&driver, "m").await?;
                shown(&driver, css("[data-testid=\"review-merge-offered\"][data-ready=\"true\"]"), "the merge editor's text").await?;

                // The kept one (the first, chosen by default) is the text, as it is; the other's
                // sentence it does not say is beside it, whole, to add.
                let (kept, gone) = (names[0].clone(), names[1].clone());
                let (kept_body, gone_only, kept_file, kept_description) = if kept == "test-style" {
                    (STYLE, "Run them with cargo nextest.", style_at.clone(), "How tests are written")
                } else {
                    (RULES, "Fixtures live in tests/fixtures.", rules_at.clone(), "How tests are written here")
                };
                let body = testid(&driver, "review-merge-body").await?;
                let text = ui::value_of(&body).await?;
                ensure!(text == kept_body, "the merge opens with {text:?}, not {kept}'s text {kept_body:?}");
                let description = ui::value_of(&testid(&driver, "review-merge-description").await?).await?;
                ensure!(description == kept_description, "the description field holds {description:?}");
                let offered = ui::texts(&driver, css("[data-testid=\"review-merge-sentence\"] .review-merge-sentence-text")).await?;
                ensure!(offered == [gone_only], "offered from {gone}: {offered:?}");
                let underlined = ui::texts(&driver, css("[data-testid=\"review-merge-sentence\"] [data-testid=\"review-only\"]")).await?;
                ensure!(underlined == [gone_only], "the offered sentence is not marked as only the other's: {underlined:?}");
                shoot(&driver, "review-merge-sentences-720x480").await?;

                // Tab from the text reaches the sentence's Add; Enter takes it in at the end.
                ensure!(focused(&driver).await?.testid == "review-merge-body", "the merge opened with focus on {:?}", focused(&driver).await?);
                press(&driver, Key::Tab).await?;
                ensure!(focused(&driver).await?.testid == "review-merge-take", "Tab from the text went to {:?}", focused(&driver).await?);
                press(&driver, Key::Enter).await?;
                let text = ui::value_of(&body).await?;
                ensure!(text == format!("{kept_body}{gone_only}\n"), "after Add the text is {text:?}");
                ensure!(focused(&driver).await?.testid == "review-merge-body", "after the last Add focus is on {:?}", focused(&driver).await?);

                // Shift+Tab to the description, a new one typed, Ctrl+S.
                press_shift(&driver, Key::Tab).await?;
                ensure!(focused(&driver).await?.testid == "review-merge-description", "Shift+Tab from the text went to {:?}", focused(&driver).await?);
                press_ctrl(&driver, "a").await?;
                driver.action_chain().send_keys("How tests are written and run").perform().await?;
                press_ctrl(&driver, "s").await?;
                ui::gone(&driver, ui::tid("review-merge-dialog"), "the merge editor to close").await?;
                count_is(&driver, 0).await?;

                let merged = std::fs::read_to_string(&kept_file)?;
                for sentence in ["Tests use real databases, never mocks.", "Each test cleans up its own rows.", "Fixtures live in tests/fixtures.", "Run them with cargo nextest."] {
                    ensure!(merged.matches(sentence).count() == 1, "{sentence:?} is not in the merged memory once:\n{merged}");
                }
                ensure!(merged.contains("description: How tests are written and run\n"), "the merged description:\n{merged}");
                ensure!(!sandbox_file(&gone, &style_at, &rules_at).exists(), "{gone} is still on disk after the merge");

                // Undo, from the notification by keyboard: both come back as they were.
                ui::text_contains(&driver, "toast", "Merged").await?;
                shoot(&driver, "review-merge-undo-720x480").await?;
                focus_on(&driver, "toast-action").await?;
                press(&driver, Key::Enter).await?;
                count_is(&driver, 1).await?;
                Ok(())
            },
        )
        .await?;
    ensure!(
        std::fs::read_to_string(&style_file)? == originals.0,
        "Undo did not bring test-style back as it was:\n{}",
        std::fs::read_to_string(&style_file)?
    );
    ensure!(
        std::fs::read_to_string(&rules_file)? == originals.1,
        "Undo did not bring test-rules back as it was:\n{}",
        std::fs::read_to_string(&rules_file)?
    );
    Ok(())
}

fn sandbox_file(
    name: &str,
    style: &std::path::Path,
    rules: &std::path::Path,
) -> std::path::PathBuf {
    if name == "test-style" {
        style.to_path_buf()
    } else {
        rules.to_path_buf()
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_supersede_is_undone_from_its_notification_by_keyboard() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "install-deps",
        "project",
        "How to install dependencies",
        "Run pnpm install at the repository root before building.\n",
    )?;
    sandbox.save_user(
        "setup-deps",
        "project",
        "Installing dependencies",
        "Run npm install at the repository root before building.\n",
    )?;
    let files = [
        sandbox.user_memory_file("install-deps"),
        sandbox.user_memory_file("setup-deps"),
    ];
    let originals: Vec<String> = files
        .iter()
        .map(std::fs::read_to_string)
        .collect::<Result<_, _>>()?;
    let on_disk = files.clone();
    sandbox
        .run(
            "review_supersede_is_undone_from_its_notification_by_keyboard",
            move |driver| async move {
                crate::review::open_with_one_finding(&driver).await?;
                go_to(&driver, "conflict").await?;
                letter(&driver, "s").await?;
                testid(&driver, "review-supersede-dialog").await?;
                press(&driver, Key::Enter).await?;
                ui::gone(
                    &driver,
                    ui::tid("review-supersede-dialog"),
                    "the supersede dialog to close",
                )
                .await?;
                count_is(&driver, 0).await?;
                ui::eventually("one of them to be superseded on disk", || {
                    let superseded = on_disk.iter().any(|f| {
                        std::fs::read_to_string(f).is_ok_and(|t| t.contains("superseded_by:"))
                    });
                    async move { Ok(superseded.then_some(())) }
                })
                .await?;
                ui::text_contains(&driver, "toast", "is superseded by").await?;
                focus_on(&driver, "toast-action").await?;
                press(&driver, Key::Enter).await?;
                count_is(&driver, 1).await?;
                Ok(())
            },
        )
        .await?;
    for (file, original) in files.iter().zip(&originals) {
        let now = std::fs::read_to_string(file)?;
        ensure!(
            &now == original,
            "Undo did not bring {} back as it was:\n{now}\n--- was ---\n{original}",
            file.display()
        );
    }
    Ok(())
}

/// The marked words (`review-claim`) and underlined sentences (`review-only`) of one side of
/// the first pair, once core's comparison is shown.
async fn side_marks(driver: &WebDriver, name: &str) -> TestResult<(Vec<String>, Vec<String>)> {
    let side = format!("[data-testid=\"review-side\"][data-name=\"{name}\"]");
    shown(
        driver,
        css(&format!("{side} .review-compared[data-compared=\"true\"]")),
        "the pair's texts compared",
    )
    .await?;
    Ok((
        ui::texts(
            driver,
            css(&format!("{side} [data-testid=\"review-claim\"]")),
        )
        .await?,
        ui::texts(
            driver,
            css(&format!("{side} [data-testid=\"review-only\"]")),
        )
        .await?,
    ))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_marks_only_the_words_that_differ_in_a_pair() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "deploy-flow",
        "project",
        "How deploys go out",
        "Deploys go out from the release branch after the full suite passes; ping the team channel first.\nStaging resets every night at midnight.\n",
    )?;
    sandbox.save_user(
        "deploy-steps",
        "project",
        "How deploys go out",
        "Deploys go out from the release branch after the full suite passes; ping the ops channel first.\n",
    )?;
    sandbox
        .run(
            "review_marks_only_the_words_that_differ_in_a_pair",
            |driver| async move {
                crate::review::open_with_one_finding(&driver).await?;
                for (w, h) in [(1280, 800), (720, 480)] {
                    resize(&driver, w, h).await?;
                    let (marks, whole) = side_marks(&driver, "deploy-flow").await?;
                    ensure!(marks == ["team"], "deploy-flow's marked words: {marks:?}");
                    ensure!(
                        whole == ["Staging resets every night at midnight."],
                        "deploy-flow's sentence only it has: {whole:?}"
                    );
                    let (marks, whole) = side_marks(&driver, "deploy-steps").await?;
                    ensure!(marks == ["ops"], "deploy-steps' marked words: {marks:?}");
                    ensure!(
                        whole.is_empty(),
                        "deploy-steps has a sentence marked whole: {whole:?}"
                    );
                    shoot(&driver, &format!("review-pair-words-{w}x{h}")).await?;
                }
                Ok(())
            },
        )
        .await
}

/// A duplicate that states one value two ways says so in its note: the claims that made the
/// judgment, as the person reads them.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_names_the_value_a_duplicate_states_two_ways() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "token-lifetime",
        "project",
        "Access token lifetime",
        "Access tokens expire after 15 minutes.\n",
    )?;
    sandbox.save_user(
        "token-lifetime-seconds",
        "project",
        "Access token lifetime",
        "Access tokens expire after 900 seconds.\n",
    )?;
    sandbox
        .run(
            "review_names_the_value_a_duplicate_states_two_ways",
            |driver| async move {
                let text = note_of_the_one_finding_at_720(&driver).await?;
                ensure!(
                    text.starts_with("15 minutes = 900 seconds · similarity"),
                    "the note: {text:?}"
                );
                shoot(&driver, "review-duplicate-agreed-720x480").await?;
                Ok(())
            },
        )
        .await
}

/// Review opened on its one finding at 720×480: the finding's note.
async fn note_of_the_one_finding_at_720(driver: &WebDriver) -> TestResult<String> {
    crate::review::open_with_one_finding(driver).await?;
    resize(driver, 720, 480).await?;
    let note = shown(driver, css(".review-note"), "the finding's note").await?;
    Ok(note.text().await?)
}

/// With the model, a duplicate says how alike the model reads the two: the evidence of one
/// rule said in other words (the words alone do not tie these two together).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_shows_how_alike_the_model_reads_a_duplicate() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.with_models()?;
    sandbox.save_user(
        "go-tests-race",
        "project",
        "Run Go tests with race detector",
        "Always run `go test -race ./...` before pushing changes to the Go services.\n",
    )?;
    sandbox.save_user(
        "race-flag-before-push",
        "project",
        "Race detection required pre-push",
        "Before any push, the Go test suite must be executed with the `-race` flag across all packages.\n",
    )?;
    sandbox.run_ambry(&sandbox.user_home, &["memory", "reindex"])?;
    sandbox
        .run(
            "review_shows_how_alike_the_model_reads_a_duplicate",
            |driver| async move {
                let text = note_of_the_one_finding_at_720(&driver).await?;
                ensure!(
                    text.starts_with("meaning ")
                        && text.contains("% alike to the model · similarity"),
                    "the note: {text:?}"
                );
                shoot(&driver, "review-duplicate-meaning-720x480").await?;
                Ok(())
            },
        )
        .await
}
