//! A secret an older filter let into the archive: Settings shows the doctor's finding and leads
//! to the Archive, which names the leaked copy; purging it (confirmed by keyboard, after a
//! dialog naming exactly the file that goes) removes that one version and nothing else.

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{focused, press};
use crate::seed::Sandbox;
use crate::ui::{self, click, click_on, css, shown, testid, text_contains};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_leaked_secret_in_the_archive_is_shown_and_purged_alone_after_a_keyboard_confirmation(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "db",
        "project",
        "How the app reaches the database",
        "Connect as the app user.\n",
    )?;
    sandbox.save_user(
        "db",
        "project",
        "How the app reaches the database",
        "Connect as the app user over TLS.\n",
    )?;
    sandbox.save_user(
        "db",
        "project",
        "How the app reaches the database",
        "The password lives in the vault.\n",
    )?;
    sandbox.save_user(
        "deploys",
        "project",
        "Deploy on Tuesdays",
        "Deploy on Tuesdays.\n",
    )?;
    sandbox.save_user(
        "deploys",
        "project",
        "Deploy on Tuesdays",
        "Deploy on Tuesdays, never Fridays.\n",
    )?;
    let mut db_versions = sandbox.user_archive("db")?;
    db_versions.sort();
    ensure!(
        db_versions.len() == 2,
        "two archived versions of db: {db_versions:?}"
    );
    // Written by hand on purpose: today's filter refuses this text at save, so only a copy an
    // older filter let through can hold it (the case the doctor's check exists for).
    let leaked = db_versions[0].clone();
    std::fs::write(&leaked, "---\nname: db\ntype: project\ndescription: How the app reaches the database\n---\nDB_PASSWORD=Xk9mP2vL7qRt\n")?;
    let kept_version = db_versions[1].clone();
    let current = sandbox.user_memory_file("db");
    let deploys_archive = sandbox.user_archive("deploys")?;
    let before: Vec<(std::path::PathBuf, Vec<u8>)> = [
        kept_version.clone(),
        current.clone(),
        sandbox.user_memory_file("deploys"),
    ]
    .into_iter()
    .chain(deploys_archive.iter().cloned())
    .map(|p| std::fs::read(&p).map(|b| (p, b)))
    .collect::<Result<_, _>>()?;
    let leaked_file_name = leaked
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let on_disk = leaked.clone();

    sandbox
        .run("a_leaked_secret_in_the_archive_is_shown_and_purged_alone_after_a_keyboard_confirmation", |driver| async move {
            ui::ready(&driver).await?;
            // Settings: the doctor's finding, and the way to act on it.
            click(&driver, "nav-settings").await?;
            let detail = ui::eventually("the secret check among the problems in Settings", || {
                let driver = driver.clone();
                async move {
                    for check in driver.find_all(css("[data-testid=\"doctor-check\"][data-status=\"error\"]")).await? {
                        let text = check.text().await?;
                        if text.contains("looks like a secret") {
                            return Ok(Some(text));
                        }
                    }
                    Ok(None)
                }
            })
            .await?;
            ensure!(detail.contains("looks like a secret") && detail.contains(&leaked_file_name), "the check names the leaked file: {detail}");
            ensure!(!detail.contains("7qRt"), "the check does not reveal the secret: {detail}");
            click(&driver, "doctor-review-secrets").await?;
            shown(&driver, css("[data-testid=\"nav-archive\"][data-active=\"true\"]"), "the Archive to open").await?;

            // The Archive: the finding names the version, masked; only that version is marked.
            let banner = text_contains(&driver, "archive-leaks", "db").await?;
            ensure!(banner.contains("password or secret assignment") && !banner.contains("7qRt"), "the finding, masked: {banner}");
            let marked = driver.find_all(css("[data-testid=\"archive-leak\"]")).await?;
            ensure!(marked.len() == 1, "exactly one file holds a secret, {} listed", marked.len());
            let purge_button = css("[data-testid=\"archive-leak-purge\"][data-name=\"db\"]");

            // Escape cancels: nothing is removed.
            click_on(&driver, purge_button.clone(), "the purge button of the leaked db version").await?;
            text_contains(&driver, "confirm-message", "Only this archived copy of db").await?;
            press(&driver, Key::Escape).await?;
            ui::gone(&driver, ui::tid("confirm-dialog"), "the dialog to close on Escape").await?;
            ensure!(on_disk.exists(), "cancelling the purge removed the file");

            // The dialog says exactly what goes and what stays; Tab to Purge, Enter confirms.
            click_on(&driver, purge_button, "the purge button of the leaked db version").await?;
            let preview = testid(&driver, "purge-preview").await?.text().await?;
            ensure!(preview.contains(&leaked_file_name), "the dialog names the file that goes: {preview}");
            ensure!(preview.contains("the current db memory and its 1 other archived version"), "the dialog says what stays: {preview}");
            ensure!(focused(&driver).await?.testid == "confirm-cancel", "a destructive dialog starts on Cancel");
            capture(&driver, "purge-confirm").await?;
            press(&driver, Key::Tab).await?;
            ensure!(focused(&driver).await?.testid == "confirm-ok", "Tab reaches Purge");
            press(&driver, Key::Enter).await?;
            ui::gone(&driver, ui::tid("confirm-dialog"), "the dialog to close after the purge").await?;
            ui::eventually("the leaked version to be gone from disk", || {
                let gone = !on_disk.exists();
                async move { Ok(gone.then_some(())) }
            })
            .await?;
            ui::eventually("the finding to clear", || {
                let driver = driver.clone();
                async move { Ok((!driver.find(ui::tid("archive-leaks")).await?.is_displayed().await?).then_some(())) }
            })
            .await?;
            let db_rows = driver.find_all(css("[data-testid=\"archive-version\"][data-name=\"db\"]")).await?;
            ensure!(db_rows.len() == 1, "db keeps its other archived version in the list, {} shown", db_rows.len());
            capture(&driver, "purge-done").await?;
            Ok(())
        })
        .await?;

    ensure!(!leaked.exists(), "the leaked version is still on disk");
    for (path, bytes) in &before {
        ensure!(
            std::fs::read(path)? == *bytes,
            "{} changed or went missing",
            path.display()
        );
    }
    ensure!(
        sandbox.user_archive("db")? == vec![kept_version],
        "db's other archived version is all that is left of its archive"
    );
    Ok(())
}
