//! Editing a memory in the detail pane: a save rewrites the file through the store (archiving
//! the prior version); a refused save says why inline and keeps what the person typed.

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, click, open_memory, testid, text_contains, value_of};

fn seeded() -> TestResult<Sandbox> {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "release-checklist",
        "project",
        "Steps before tagging a release",
        "Run the full test suite.\n",
    )?;
    sandbox.save_user(
        "tabs-not-spaces",
        "feedback",
        "Indent with tabs in Go files",
        "gofmt decides.\n",
    )?;
    Ok(sandbox)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn saving_an_edit_rewrites_the_file_and_archives_the_prior_version() -> TestResult {
    let sandbox = seeded()?;
    let file = sandbox.user_memory_file("release-checklist");
    let before = std::fs::read_to_string(&file)?;
    let archived_before = sandbox.user_archive("release-checklist")?.len();
    sandbox
        .run(
            "saving_an_edit_rewrites_the_file_and_archives_the_prior_version",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                open_memory(&driver, "release-checklist").await?;
                click(&driver, "detail-edit").await?;
                let description = testid(&driver, "form-description").await?;
                ui::fill(&description, "Everything to check before tagging a release").await?;
                let body = testid(&driver, "form-body").await?;
                ui::fill(
                    &body,
                    "Run the full test suite.\nBump the version in Cargo.toml.\n",
                )
                .await?;
                click(&driver, "form-save").await?;
                // The pane goes back to reading mode and shows what was saved.
                text_contains(
                    &driver,
                    "detail-description",
                    "Everything to check before tagging a release",
                )
                .await?;
                text_contains(&driver, "detail-body", "Bump the version in Cargo.toml.").await?;
                Ok(())
            },
        )
        .await?;
    let after = std::fs::read_to_string(&file)?;
    ensure!(
        after.contains("description: Everything to check before tagging a release"),
        "file after save:\n{after}"
    );
    ensure!(
        after.contains("Bump the version in Cargo.toml."),
        "file after save:\n{after}"
    );
    let archived = sandbox.user_archive("release-checklist")?;
    ensure!(
        archived.len() == archived_before + 1,
        "expected one more archived version, found {archived:?}"
    );
    let prior = std::fs::read_to_string(archived.iter().max().unwrap())?;
    ensure!(
        prior == before,
        "the archived version is not the prior file:\n{prior}\n--- was ---\n{before}"
    );
    Ok(())
}

/// Opens the edit form on `release-checklist`, changes one field with `edit`, saves, and checks
/// the inline error names `expect_in_error`, every field still holds the edit, and the file on
/// disk is untouched.
async fn refused_save(
    test: &str,
    edit: fn() -> (&'static str, &'static str),
    expect_code: &'static str,
) -> TestResult {
    let sandbox = seeded()?;
    let file = sandbox.user_memory_file("release-checklist");
    let before = std::fs::read_to_string(&file)?;
    let (field, typed) = edit();
    sandbox
        .run(test, move |driver| async move {
            ui::open_user_memories(&driver).await?;
            open_memory(&driver, "release-checklist").await?;
            click(&driver, "detail-edit").await?;
            let description = testid(&driver, "form-description").await?;
            ui::fill(&description, "An edit that must survive a refused save").await?;
            let input = testid(&driver, field).await?;
            ui::fill(&input, typed).await?;
            click(&driver, "form-save").await?;
            let error = ui::shown(&driver, ui::tid("form-error"), "the inline save error").await?;
            let code = error.attr("data-code").await?.unwrap_or_default();
            let message = error.text().await?;
            ensure!(
                code == expect_code,
                "error code {code:?} (message {message:?}), expected {expect_code}"
            );
            ensure!(!message.trim().is_empty(), "the inline error has no text");
            // Nothing the person typed is lost, and the form stays open.
            let kept = value_of(&testid(&driver, field).await?).await?;
            ensure!(
                kept == typed,
                "{field} now holds {kept:?}, expected the typed {typed:?}"
            );
            let kept = value_of(&testid(&driver, "form-description").await?).await?;
            ensure!(
                kept == "An edit that must survive a refused save",
                "description now holds {kept:?}"
            );
            let invalid = testid(&driver, field)
                .await?
                .class_name()
                .await?
                .unwrap_or_default();
            ensure!(
                invalid.contains("invalid"),
                "the offending field {field} is not marked invalid (class {invalid:?})"
            );
            Ok(())
        })
        .await?;
    let after = std::fs::read_to_string(&file)?;
    ensure!(after == before, "a refused save changed the file:\n{after}");
    ensure!(
        sandbox.user_archive("release-checklist")?.is_empty(),
        "a refused save archived a version"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn an_invalid_name_is_refused_inline_and_the_edit_is_kept() -> TestResult {
    refused_save(
        "an_invalid_name_is_refused_inline_and_the_edit_is_kept",
        || ("form-name", "Release Checklist!"),
        "invalid_name",
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_secret_in_the_body_is_refused_inline_and_the_edit_is_kept() -> TestResult {
    refused_save(
        "a_secret_in_the_body_is_refused_inline_and_the_edit_is_kept",
        || {
            (
                "form-body",
                "Deploy with AWS key AKIAZ3MXQ7V2LPRT4K9B for the release bucket.",
            )
        },
        "secret_detected",
    )
    .await
}
