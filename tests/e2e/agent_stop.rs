//! Stopping the person's agent from the app: a run that hangs (a stand-in script that never
//! answers) is stopped from the Review's Ask dialog by Escape, and from the notification a
//! project's distill shows while it runs. The agent's process is gone afterwards, the dialog
//! says it was stopped and nothing was kept, and no memory, verdict or proposal changed.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::press;
use crate::seed::Sandbox;
use crate::ui::{self, css, testid};

/// A stand-in agent that says its pid and then waits, as a hung agent does; each run writes its
/// own `agent-PID.pid` in `home`.
fn hanging_agent(home: &Path) -> TestResult<PathBuf> {
    let script = home.join("fake-claude");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho $$ > '{dir}/agent-$$.tmp' && mv '{dir}/agent-$$.tmp' '{dir}/agent-$$.pid'\nexec sleep 600\n",
            dir = home.display()
        ),
    )?;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    Ok(script)
}

/// The pids of the agents started so far.
fn agents_started(home: &Path) -> Vec<u32> {
    std::fs::read_dir(home)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".pid"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok()?.trim().parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The pid of the agent started after `before`, once it runs.
async fn agent_pid(home: &Path, before: &[u32]) -> TestResult<u32> {
    ui::eventually("the agent to start", || async {
        Ok(agents_started(home)
            .into_iter()
            .find(|pid| !before.contains(pid)))
    })
    .await
}

/// Whether a process `pid` is alive (a zombie is not: it has ended and waits to be reaped).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim().to_string()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

async fn ended(pid: u32) -> TestResult {
    ui::eventually("the agent's process to end", || async {
        Ok((!alive(pid)).then_some(()))
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_hung_agent_is_stopped_from_the_ask_dialog_by_escape() -> TestResult {
    let sandbox = Sandbox::new()?;
    crate::review::save_pair_that_moved_on(&sandbox)?;
    let script = hanging_agent(&sandbox.home)?;
    let (files, before) = crate::review_ask::ask_with(&sandbox, &script)?;
    let home = sandbox.home.clone();
    let verdicts = sandbox.home.join("distill").join("verdicts.json");
    sandbox
        .run(
            "a_hung_agent_is_stopped_from_the_ask_dialog_by_escape",
            move |driver| async move {
                crate::review_ask::open_ask(&driver).await?;
                ui::text_contains(&driver, "review-ask-plan", "1 pair in one call").await?;
                ui::click(&driver, "review-ask-ok").await?;
                ui::text_contains(&driver, "review-ask-progress", "Escape stops it").await?;
                let pid = agent_pid(&home, &[]).await?;
                ensure!(alive(pid), "the agent runs");
                let stop = testid(&driver, "review-ask-cancel").await?;
                ensure!(
                    stop.text().await? == "Stop",
                    "while the agent runs, Cancel reads Stop"
                );

                // Escape stops the run, not only the dialog: the agent's process ends.
                press(&driver, Key::Escape).await?;
                let said = ui::text_contains(&driver, "review-ask-error", "was stopped").await?;
                ensure!(
                    said.contains("nothing it said was kept"),
                    "the dialog says what a stop means: {said}"
                );
                ended(pid).await?;
                if std::env::var("AMBRY_E2E_SCREENSHOTS").is_ok_and(|v| v == "all") {
                    crate::harness::capture(&driver, "agent-stopped-ask").await?;
                }
                testid(&driver, "review-ask-dialog").await?;
                ensure!(
                    testid(&driver, "review-ask-cancel").await?.text().await? == "Cancel",
                    "Cancel is Cancel again once stopped"
                );
                ensure!(!verdicts.exists(), "a stopped run kept a verdict");
                for (file, text) in files.iter().zip(&before) {
                    ensure!(
                        &std::fs::read_to_string(file)? == text,
                        "{} changed",
                        file.display()
                    );
                }
                // Escape now closes the dialog.
                press(&driver, Key::Escape).await?;
                ui::gone(&driver, ui::tid("review-ask-dialog"), "the dialog to close").await?;
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_hung_distill_is_stopped_from_its_notification() -> TestResult {
    let sandbox = Sandbox::new()?;
    crate::distill::write_release_session(&sandbox)?;
    let script = hanging_agent(&sandbox.home)?;
    std::fs::write(
        sandbox.home.join("config.toml"),
        format!("[distill]\nclaude_command = \"{}\"\n", script.display()),
    )?;
    let proposals = sandbox.home.join("distill").join("proposals.json");
    let home = sandbox.home.clone();
    sandbox
        .run(
            "a_hung_distill_is_stopped_from_its_notification",
            move |driver| async move {
                ui::ready(&driver).await?;
                crate::distill::distill_the_release_session(&driver).await?;
                ui::text_contains(&driver, "confirm-message", "1 call to claude").await?;
                ui::click(&driver, "confirm-ok").await?;
                let pid = agent_pid(&home, &[]).await?;
                let note = ui::shown(
                    &driver,
                    css("[data-testid=\"toast\"][data-running=\"agent\"]"),
                    "the notification while the agent runs",
                )
                .await?;
                ensure!(
                    note.text().await?.contains("Distilling this session with claude"),
                    "the notification says what runs"
                );
                // Stop, by keyboard: the notification's button takes focus and Enter.
                let stop = note
                    .find(By::Css("[data-testid=\"toast-action\"]".to_string()))
                    .await?;
                ensure!(stop.text().await? == "Stop", "the action is Stop");
                if std::env::var("AMBRY_E2E_SCREENSHOTS").is_ok_and(|v| v == "all") {
                    crate::harness::capture(&driver, "agent-running-distill").await?;
                }
                stop.focus().await?;
                press(&driver, Key::Enter).await?;
                ended(pid).await?;
                ui::shown(
                    &driver,
                    By::XPath(
                        "//*[@data-testid='toast'][contains(., 'Stopped; nothing the agent said was kept.')]"
                            .to_string(),
                    ),
                    "the stop said",
                )
                .await?;
                ui::gone(
                    &driver,
                    css("[data-testid=\"toast\"][data-running=\"agent\"]"),
                    "the running notification to go",
                )
                .await?;
                ensure!(
                    std::fs::read_to_string(&proposals)
                        .map(|p| !p.contains("commit"))
                        .unwrap_or(true),
                    "a stopped distill left a proposal"
                );
                Ok(())
            },
        )
        .await
}

/// Two runs at once: a session's distill, then an Ask from Review. The Ask's Stop ends the Ask's
/// agent and leaves the distill's running; the distill's Stop then ends that one.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_stop_ends_its_own_run_and_no_other() -> TestResult {
    let sandbox = Sandbox::new()?;
    crate::distill::write_release_session(&sandbox)?;
    crate::review::save_pair_that_moved_on(&sandbox)?;
    let script = hanging_agent(&sandbox.home)?;
    crate::review_ask::ask_with(&sandbox, &script)?;
    let home = sandbox.home.clone();
    sandbox
        .run(
            "a_stop_ends_its_own_run_and_no_other",
            move |driver| async move {
                ui::ready(&driver).await?;
                crate::distill::distill_the_release_session(&driver).await?;
                ui::text_contains(&driver, "confirm-message", "1 call to claude").await?;
                ui::click(&driver, "confirm-ok").await?;
                let distilling = agent_pid(&home, &[]).await?;

                crate::review_ask::open_ask(&driver).await?;
                ui::text_contains(&driver, "review-ask-plan", "1 pair in one call").await?;
                ui::click(&driver, "review-ask-ok").await?;
                let asking = agent_pid(&home, &[distilling]).await?;
                press(&driver, Key::Escape).await?;
                ui::text_contains(&driver, "review-ask-error", "was stopped").await?;
                ended(asking).await?;
                ensure!(
                    alive(distilling),
                    "the Ask's Stop ended the distill's agent too"
                );

                press(&driver, Key::Escape).await?;
                ui::gone(&driver, ui::tid("review-ask-dialog"), "the dialog to close").await?;
                let stop = ui::shown(
                    &driver,
                    css("[data-testid=\"toast\"][data-running=\"agent\"] [data-testid=\"toast-action\"]"),
                    "the distill's Stop",
                )
                .await?;
                stop.click().await?;
                ended(distilling).await?;
                Ok(())
            },
        )
        .await
}
