//! Asking the person's own agent from the Review view: a pair marked "duplicate or conflict?"
//! brings the *Ask Claude Code / Codex…* button; it shows the dry run first (how many pairs, to
//! which agent, the size, the text) and runs nothing until the person asks; a failing agent
//! (here a stand-in script speaking Claude Code's JSON result, "Invalid API key") says why in
//! the dialog; asked again, its verdict and reason show beside the pair, and no memory changed.

use std::os::unix::fs::PermissionsExt;

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{press, resize};
use crate::seed::Sandbox;
use crate::ui::{self, css, testid};

/// Saves a screenshot when `AMBRY_E2E_SCREENSHOTS=all`.
async fn shoot(driver: &WebDriver, label: &str) -> TestResult {
    if std::env::var("AMBRY_E2E_SCREENSHOTS").is_ok_and(|v| v == "all") {
        crate::harness::capture(driver, label).await?;
    }
    Ok(())
}

/// Whether the element `id` shows wholly inside the window.
async fn inside(driver: &WebDriver, id: &str) -> TestResult<bool> {
    Ok(driver
        .execute(
            "const e = document.querySelector(`[data-testid=\"${arguments[0]}\"]`); if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;",
            vec![serde_json::json!(id)],
        )
        .await?
        .convert()?)
}

/// Sets `script` as the Claude Code the review asks; the pair's two files and their texts.
pub(crate) fn ask_with(
    sandbox: &Sandbox,
    script: &std::path::Path,
) -> TestResult<([std::path::PathBuf; 2], Vec<String>)> {
    std::fs::write(
        sandbox.home.join("config.toml"),
        format!("[distill]\nclaude_command = \"{}\"\n", script.display()),
    )?;
    let files = [
        sandbox.user_memory_file("pkg-install"),
        sandbox.user_memory_file("pkg-install-now"),
    ];
    let before = files
        .iter()
        .map(std::fs::read_to_string)
        .collect::<Result<_, _>>()?;
    Ok((files, before))
}

/// Review, the pair asked about, and its *Ask Claude Code / Codex…* dialog.
pub(crate) async fn open_ask(driver: &WebDriver) -> TestResult {
    ui::ready(driver).await?;
    ui::click(driver, "nav-review").await?;
    ui::shown(
        driver,
        css("[data-testid=\"review-finding\"][data-kind=\"same_subject\"]"),
        "the pair asked about",
    )
    .await?;
    ui::click(driver, "review-ask").await
}

const REASON: &str = "One says installs moved off the per-package way the other still describes.";

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_asks_the_agent_about_an_uncertain_pair_and_shows_its_verdict() -> TestResult {
    let sandbox = Sandbox::new()?;
    crate::review::save_pair_that_moved_on(&sandbox)?;
    let log = sandbox.home.join("agent-calls.log");
    let failing = sandbox.home.join("agent-fails");
    let ok = sandbox.home.join("agent-ok.json");
    let fail = sandbox.home.join("agent-fail.json");
    std::fs::write(
        &ok,
        serde_json::json!({"type": "result", "is_error": false, "result": "", "structured_output":
            {"verdicts": [{"pair": 1, "verdict": "conflict", "reason": REASON}]}})
        .to_string(),
    )?;
    std::fs::write(
        &fail,
        serde_json::json!({"type": "result", "subtype": "success", "is_error": true,
            "result": "Invalid API key · Please run /login"})
        .to_string(),
    )?;
    std::fs::write(&failing, "")?;
    let script = sandbox.home.join("fake-claude");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > /dev/null\necho call >> '{log}'\nif [ -e '{failing}' ]; then cat '{fail}'; exit 1; fi\ncat '{ok}'\n",
            log = log.display(),
            failing = failing.display(),
            fail = fail.display(),
            ok = ok.display()
        ),
    )?;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    let (files, before) = ask_with(&sandbox, &script)?;
    sandbox
        .run(
            "review_asks_the_agent_about_an_uncertain_pair_and_shows_its_verdict",
            move |driver| async move {
                open_ask(&driver).await?;
                testid(&driver, "review-ask-dialog").await?;
                let plan = ui::text_contains(
                    &driver,
                    "review-ask-plan",
                    "1 pair in one call to Claude Code",
                )
                .await?;
                ensure!(
                    plan.contains("bytes") && plan.contains("tokens"),
                    "the dry run says what it sends: {plan}"
                );
                ensure!(!log.exists(), "the agent ran before the person asked");

                // The agent fails: its reason is said in the dialog, up front.
                ui::click(&driver, "review-ask-ok").await?;
                let error =
                    ui::text_contains(&driver, "review-ask-error", "Invalid API key").await?;
                ensure!(
                    error.starts_with("claude failed for the review's uncertain pairs (error)"),
                    "the failure is said as it is: {error}"
                );
                shoot(&driver, "review-ask-failed").await?;

                // Fixed, asked again: the verdict beside the pair, the dialog gone.
                std::fs::remove_file(&failing)?;
                ui::click(&driver, "review-ask-ok").await?;
                ui::gone(&driver, ui::tid("review-ask-dialog"), "the dialog to close").await?;
                let verdict = ui::text_contains(&driver, "review-agent-verdict", REASON).await?;
                ensure!(
                    verdict.starts_with("Claude Code says: conflict"),
                    "the verdict reads {verdict}"
                );
                shoot(&driver, "review-ask-verdict").await?;
                ensure!(
                    std::fs::read_to_string(&log)?.lines().count() == 2,
                    "one call per ask"
                );
                // The person still decides: both actions stay offered.
                ui::shown(
                    &driver,
                    css("[data-kind=\"same_subject\"] [data-testid=\"review-merge\"]"),
                    "Merge",
                )
                .await?;
                ui::shown(
                    &driver,
                    css("[data-kind=\"same_subject\"] [data-testid=\"review-supersede\"]"),
                    "Supersede",
                )
                .await?;
                for (file, text) in files.iter().zip(&before) {
                    ensure!(
                        &std::fs::read_to_string(file)? == text,
                        "{} changed",
                        file.display()
                    );
                }

                // In a small window: the button and the dialog's actions stay in view, and a
                // pair already judged is not offered again.
                resize(&driver, 720, 480).await?;
                ensure!(
                    inside(&driver, "review-ask").await?,
                    "the Ask button is outside the window at 720×480"
                );
                ui::click(&driver, "review-ask").await?;
                ui::text_contains(&driver, "review-ask-plan", "Every pair was judged before")
                    .await?;
                ensure!(
                    inside(&driver, "review-ask-cancel").await?,
                    "Cancel is outside the window at 720×480"
                );
                shoot(&driver, "review-ask-small").await?;
                press(&driver, Key::Escape).await?;
                ui::gone(&driver, ui::tid("review-ask-dialog"), "the dialog to close").await?;
                ensure!(
                    std::fs::read_to_string(&log)?.lines().count() == 2,
                    "the agent ran for a judged pair"
                );
                Ok(())
            },
        )
        .await
}
