//! Saying when memories are needed from the app: the palette's *Say when your memories are
//! needed…* first shows the dry run (how many memories, which agent, the tokens) and sends
//! nothing until the person confirms; confirmed, the person's agent (here a stand-in script
//! speaking Claude Code's JSON result) runs once and its phrases wait in the Review as a
//! proposal showing them; by keyboard, A accepts it and the memory's file gains exactly them.

use std::os::unix::fs::PermissionsExt;

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{focus_on, press, press_ctrl};
use crate::seed::Sandbox;
use crate::ui::{self, css, testid};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_agents_when_phrases_wait_in_review_and_accepting_writes_them() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "db-pool",
        "project",
        "Connection pool sizing",
        "The pool holds at most 20 connections.",
    )?;
    let log = sandbox.home.join("agent-calls.log");
    let script = sandbox.home.join("fake-claude");
    let answer = serde_json::json!({"annotations": [{"memory": "user/db-pool",
        "when": ["bumping the DB pool size", "too many connections error"]}]});
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat > /dev/null\necho call >> '{}'\nprintf '%s\\n' '{}'\n",
            log.display(),
            serde_json::json!({"type": "result", "is_error": false, "result": "", "structured_output": answer})
        ),
    )?;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    std::fs::write(
        sandbox.home.join("config.toml"),
        format!("[distill]\nclaude_command = \"{}\"\n", script.display()),
    )?;
    let file = sandbox.user_memory_file("db-pool");
    let before = std::fs::read_to_string(&file)?;
    let home = sandbox.home.clone();
    sandbox
        .run(
            "the_agents_when_phrases_wait_in_review_and_accepting_writes_them",
            move |driver| async move {
                ui::ready(&driver).await?;
                press_ctrl(&driver, "k").await?;
                let input = testid(&driver, "search-input").await?;
                ui::fill(&input, "> say when your").await?;
                ui::shown(
                    &driver,
                    css("[data-testid=\"palette-item\"][data-kind=\"action\"][data-key=\"annotate:user\"]"),
                    "the Say when action",
                )
                .await?;
                press(&driver, Key::Enter).await?;
                let message =
                    ui::text_contains(&driver, "confirm-message", "1 memory in one call to claude")
                        .await?;
                ensure!(
                    message.contains("tokens"),
                    "the dry run says what it costs: {message}"
                );
                ensure!(!log.exists(), "nothing ran before the person confirmed");
                ui::click(&driver, "confirm-ok").await?;
                ui::eventually("the proposal in the inbox", || {
                    let home = home.clone();
                    async move {
                        let pending = std::fs::read_to_string(home.join("distill/proposals.json"))
                            .unwrap_or_default();
                        Ok(pending.contains("bumping the DB pool size").then_some(()))
                    }
                })
                .await?;
                ensure!(
                    std::fs::read_to_string(&file)? == before,
                    "nothing written before an accept"
                );

                // The proposal in the Review view, its phrases shown; A accepts it.
                crate::review::open(&driver).await?;
                ui::shown(
                    &driver,
                    css("[data-testid=\"review-proposal\"][data-action=\"when\"]"),
                    "the when proposal in Review",
                )
                .await?;
                ui::text_contains(&driver, "review-when-phrase", "bumping the DB pool size")
                    .await?;
                crate::harness::capture(&driver, "review-when-proposal").await?;
                focus_on(&driver, "review-finding").await?;
                driver.action_chain().send_keys("a").perform().await?;
                let text = ui::eventually("the phrases in the memory's file", || {
                    let file = file.clone();
                    async move {
                        Ok(std::fs::read_to_string(&file)
                            .ok()
                            .filter(|t| t.contains("when:")))
                    }
                })
                .await?;
                ensure!(
                    text.contains("when: [bumping the DB pool size, too many connections error]\n"),
                    "exactly the phrases: {text}"
                );
                ensure!(
                    text.ends_with("The pool holds at most 20 connections.\n"),
                    "the same body: {text}"
                );
                ui::text_contains(&driver, "review-count", "0 to review").await?;
                Ok(())
            },
        )
        .await
}
