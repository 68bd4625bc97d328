//! Personal sync in the app (DESIGN §15), by keyboard: the sidebar says where sync stands, Sync
//! now brings in another machine's edit of a memory this machine also changed, and the
//! "changed on two machines" finding is answered from Review — the other machine's version
//! taken with U.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{focus_on, press};
use crate::seed::Sandbox;
use crate::ui::{self, css, eventually, shown, text_contains};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn sync_now_brings_a_two_machine_conflict_that_review_settles_by_keyboard() -> TestResult {
    let laptop = Sandbox::new()?;
    let desk = Sandbox::new()?;
    let remote = laptop.user_home.join("remote.git");
    let status = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&remote)
        .status()?;
    ensure!(status.success(), "git init --bare");
    let remote_arg = remote.display().to_string();
    laptop.save_user(
        "editor",
        "user",
        "The editor I use",
        "Helix, with the default keymap.\n",
    )?;
    laptop.run_ambry(&laptop.user_home, &["sync", "init", &remote_arg])?;
    desk.run_ambry(&desk.user_home, &["sync", "init", &remote_arg])?;
    // The desk edits it first (an older `updated`) and syncs; then the laptop edits it too.
    let desk_file = desk.user_memory_file("editor");
    let desk_text = std::fs::read_to_string(&desk_file)?;
    ensure!(
        desk_text.contains("Helix"),
        "the desk got the laptop's memory:\n{desk_text}"
    );
    let older = desk_text
        .lines()
        .filter(|l| !l.starts_with("updated:"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(
            "Helix, with the default keymap.",
            "Helix, with vim bindings. DESK-EDIT",
        )
        .replacen("\n---\n", "\nupdated: 2026-01-01T00:00:00Z\n---\n", 1);
    std::fs::write(&desk_file, older + "\n")?;
    desk.run_ambry(&desk.user_home, &["sync"])?;
    laptop.save_user(
        "editor",
        "user",
        "The editor I use",
        "Helix, with the default keymap and a wide ruler. LAPTOP-EDIT\n",
    )?;
    let file = laptop.user_memory_file("editor");
    laptop
        .run(
            "sync_now_brings_a_two_machine_conflict_that_review_settles_by_keyboard",
            |driver| async move {
                ui::ready(&driver).await?;
                text_contains(&driver, "sync-line", "Synced").await?;
                focus_on(&driver, "sync-now").await?;
                press(&driver, Key::Enter).await?;
                text_contains(&driver, "sync-line", "changed on two machines").await?;
                crate::review::open(&driver).await?;
                shown(&driver, css("[data-testid=\"review-finding\"][data-kind=\"changed_on_two_machines\"]"), "the two-machine finding").await?;
                text_contains(&driver, "review-sync-kept", "LAPTOP-EDIT").await?;
                text_contains(&driver, "review-sync-other", "DESK-EDIT").await?;
                crate::harness::capture(&driver, "sync-conflict").await?;
                // The view re-renders as counts arrive: the card is focused as it is now.
                driver
                    .execute("document.querySelector('[data-testid=\"review-finding\"][data-kind=\"changed_on_two_machines\"]').focus();", vec![])
                    .await?;
                driver.action_chain().send_keys("u").perform().await?;
                ui::gone(
                    &driver,
                    css("[data-kind=\"changed_on_two_machines\"]"),
                    "the finding, once settled",
                )
                .await?;
                eventually("the line to stop counting the conflict", || async {
                    let line = driver.find(ui::tid("sync-line")).await?.text().await?;
                    Ok((!line.contains("changed on two machines")).then_some(()))
                })
                .await?;
                Ok(())
            },
        )
        .await?;
    let settled = std::fs::read_to_string(&file)?;
    ensure!(
        settled.contains("DESK-EDIT") && !settled.contains("<<<<<<<"),
        "the other machine's version is in the file:\n{settled}"
    );
    Ok(())
}
