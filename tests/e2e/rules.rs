//! Memories with teeth in the app (DESIGN §16), by keyboard: a rule written in the memory form
//! with its live test and the past calls it would have caught, saved into the file; and a rule
//! an agent proposed, turned on from Review.

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::keys::{focus_on, press, press_ctrl, resize};
use crate::seed::Sandbox;
use crate::ui::{self, css, eventually, open_memory, shown, testid, text_contains};

/// A past Claude Code session of the sandbox's person that ran `npm install` and `pnpm add`.
fn past_session(sandbox: &Sandbox) -> TestResult {
    let dir = sandbox.user_home.join(".claude/projects/-work");
    std::fs::create_dir_all(&dir)?;
    let line = |i: u32, content: serde_json::Value, kind: &str| {
        serde_json::json!({"type": kind, "sessionId": "past-install", "cwd": "/work",
                           "timestamp": format!("2026-11-02T09:00:0{i}Z"), "message": {"role": kind, "content": content}})
        .to_string()
    };
    let call = |i: u32, command: &str| {
        line(
            i,
            serde_json::json!([{"type": "tool_use", "id": format!("t{i}"), "name": "Bash", "input": {"command": command}}]),
            "assistant",
        )
    };
    let lines = [
        line(0, serde_json::json!("add left-pad to the web app"), "user"),
        call(1, "npm install left-pad"),
        call(2, "pnpm add left-pad"),
    ];
    std::fs::write(dir.join("past-install.jsonl"), lines.join("\n") + "\n")?;
    sandbox.run_ambry(&sandbox.user_home, &["sessions", "index"])?;
    Ok(())
}

/// Types into whatever has focus.
async fn typed(driver: &WebDriver, text: &str) -> TestResult {
    driver.action_chain().send_keys(text).perform().await?;
    Ok(())
}

async fn result_state(driver: &WebDriver, want: &str) -> TestResult<String> {
    eventually(&format!("the live test to say {want}"), || async move {
        let el = driver.find(ui::tid("form-rule-result")).await?;
        let state = el.attr("data-state").await?.unwrap_or_default();
        Ok((state == want).then_some(el.text().await?))
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_rule_written_in_the_memory_form_is_tried_live_backtested_and_saved() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "use-pnpm",
        "feedback",
        "This repo installs with pnpm",
        "Use pnpm; npm install breaks the lockfile.\n",
    )?;
    past_session(&sandbox)?;
    let file = sandbox.user_memory_file("use-pnpm");
    sandbox
        .run(
            "a_rule_written_in_the_memory_form_is_tried_live_backtested_and_saved",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                open_memory(&driver, "use-pnpm").await?;
                focus_on(&driver, "detail-edit").await?;
                press(&driver, Key::Enter).await?;
                testid(&driver, "form-body").await?;
                resize(&driver, 720, 480).await?;
                // Open the rule section, choose "Refuse", write the pattern, try two commands.
                focus_on(&driver, "form-rule-toggle").await?;
                press(&driver, Key::Enter).await?;
                press(&driver, Key::Tab).await?;
                typed(&driver, "R").await?;
                let action = testid(&driver, "form-rule-action").await?;
                ensure!(
                    ui::value_of(&action).await? == "deny",
                    "typing R on the action picks Refuse"
                );
                press(&driver, Key::Tab).await?; // tools: Bash by default
                press(&driver, Key::Tab).await?;
                typed(&driver, r"\bnpm (i|install)\b").await?;
                press(&driver, Key::Tab).await?;
                typed(&driver, "cd web && npm install left-pad").await?;
                let said = result_state(&driver, "match").await?;
                ensure!(
                    said.contains("refused"),
                    "the live test says the call is refused: {said:?}"
                );
                press_ctrl(&driver, "a").await?;
                typed(&driver, "pnpm install left-pad").await?;
                result_state(&driver, "no-match").await?;
                // The past: one of the session's two calls.
                press(&driver, Key::Tab).await?;
                press(&driver, Key::Enter).await?;
                let caught = ui::texts_until(
                    &driver,
                    ui::tid("form-rule-caught"),
                    "the past calls",
                    |t| !t.is_empty(),
                )
                .await?;
                ensure!(
                    caught.len() == 1 && caught[0].contains("npm install left-pad"),
                    "backtest: {caught:?}"
                );
                text_contains(&driver, "form-rule-summary", "1 of 2 past tool calls").await?;
                crate::harness::capture(&driver, "rule-form-720x480").await?;
                press_ctrl(&driver, "s").await?;
                text_contains(&driver, "detail-rule", "Refuses Bash calls matching").await?;
                Ok(())
            },
        )
        .await?;
    let saved = std::fs::read_to_string(&file)?;
    ensure!(
        saved
            .contains("enforce:\n  tool: Bash\n  match: '\\bnpm (i|install)\\b'\n  action: deny\n"),
        "the rule is in the file:\n{saved}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_rule_an_agent_proposed_is_turned_on_from_review_by_keyboard() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "no-yarn",
        "feedback",
        "npm workspaces, not yarn",
        "We moved from yarn to npm workspaces.\n",
    )?;
    let file = sandbox.user_memory_file("no-yarn");
    let text = std::fs::read_to_string(&file)?.replacen(
        "\n---\n",
        "\nenforce:\n  tool: Bash\n  match: '\\byarn\\b'\n  action: deny\n  status: proposed\n---\n",
        1,
    );
    std::fs::write(&file, text)?;
    sandbox
        .run(
            "a_rule_an_agent_proposed_is_turned_on_from_review_by_keyboard",
            |driver| async move {
                ui::ready(&driver).await?;
                crate::review::open(&driver).await?;
                let card = shown(
                    &driver,
                    css("[data-testid=\"review-finding\"][data-kind=\"rule_proposed\"]"),
                    "the proposed rule",
                )
                .await?;
                text_contains(&driver, "review-rule-match", "\\byarn\\b").await?;
                card.focus().await?;
                typed(&driver, "o").await?;
                ui::gone(
                    &driver,
                    css("[data-kind=\"rule_proposed\"]"),
                    "the finding, once answered",
                )
                .await?;
                Ok(())
            },
        )
        .await?;
    let saved = std::fs::read_to_string(&file)?;
    ensure!(
        saved.contains("  action: deny\n") && !saved.contains("status:"),
        "the rule is on:\n{saved}"
    );
    Ok(())
}

/// Team memory in the app (DESIGN §15): a project's team memories have their own entry, each
/// row says its state in git, and the repository is trusted from the view by keyboard.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn team_memories_show_their_git_state_and_are_trusted_from_the_view() -> TestResult {
    let sandbox = Sandbox::new()?;
    let shop = sandbox.add_project("shop")?;
    let committed = shop.root.join(".ambry/memory");
    std::fs::create_dir_all(&committed)?;
    std::fs::write(committed.join("deploy-freeze.md"), "---\nname: deploy-freeze\ntype: project\ndescription: When deploys may run\n---\nNo deploys on Friday afternoon.\n")?;
    sandbox.git(&shop.root, &["add", "-A"])?;
    sandbox.git(
        &shop.root,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "Team memory",
        ],
    )?;
    std::fs::write(
        committed.join("on-call.md"),
        "---\nname: on-call\ntype: project\ndescription: Who is on call\n---\nAna this week.\n",
    )?;
    let slug = shop.slug.clone();
    sandbox
        .run(
            "team_memories_show_their_git_state_and_are_trusted_from_the_view",
            |driver| async move {
                ui::ready(&driver).await?;
                let entry = shown(
                    &driver,
                    css(&format!(
                        "[data-testid=\"nav-team\"][data-project=\"{slug}\"]"
                    )),
                    "the team entry",
                )
                .await?;
                ensure!(
                    entry.attr("data-trusted").await?.as_deref() == Some("false"),
                    "not trusted yet"
                );
                focus_on(&driver, "nav-team").await?;
                press(&driver, Key::Enter).await?;
                text_contains(&driver, "memories-title", "shop · team").await?;
                shown(&driver, ui::tid("team-trust"), "the trust banner").await?;
                let states = ui::texts_until(&driver, ui::tid("row-git"), "the git states", |t| {
                    t.len() == 2
                })
                .await?;
                ensure!(
                    states.contains(&"committed".to_string())
                        && states.contains(&"new".to_string()),
                    "states: {states:?}"
                );
                crate::harness::capture(&driver, "team-memories").await?;
                focus_on(&driver, "team-trust-button").await?;
                press(&driver, Key::Enter).await?;
                ui::gone(
                    &driver,
                    css("[data-testid=\"team-trust\"]:not([hidden])"),
                    "the banner, once trusted",
                )
                .await?;
                shown(
                    &driver,
                    css("[data-testid=\"nav-team\"][data-trusted=\"true\"]"),
                    "the entry, trusted",
                )
                .await?;
                Ok(())
            },
        )
        .await?;
    ensure!(
        sandbox
            .home
            .join(format!("projects/{}/team-trusted", shop.slug))
            .is_file(),
        "the trust is recorded in the home"
    );
    Ok(())
}

/// The transcript of a session whose call a rule refused says so, with the memory's name.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_transcript_marks_the_calls_a_rule_refused() -> TestResult {
    let sandbox = Sandbox::new()?;
    past_session(&sandbox)?;
    sandbox.run_ambry(
        &sandbox.user_home,
        &[
            "memory",
            "save",
            "use-pnpm",
            "--type",
            "feedback",
            "--description",
            "pnpm here",
            "--body",
            "Use pnpm.",
            "--enforce-tool",
            "Bash",
            "--enforce-match",
            r"\bnpm install\b",
            "--enforce-action",
            "deny",
        ],
    )?;
    // The agent's hook, as connect installs it, for a call of that session.
    let mut hook = sandbox.ambry(&sandbox.user_home)?;
    hook.args(["compose", "--hook", "claude"])
        .env("AMBRY_NO_SERVICE", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = hook.spawn()?;
    {
        use std::io::Write;
        let payload = serde_json::json!({"session_id": "past-install", "cwd": "/work", "hook_event_name": "PreToolUse",
                                         "tool_name": "Bash", "tool_input": {"command": "npm install left-pad"}});
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())?;
    }
    let out = child.wait_with_output()?;
    ensure!(
        String::from_utf8_lossy(&out.stdout).contains("\"deny\""),
        "the hook refused the call"
    );
    sandbox
        .run(
            "a_transcript_marks_the_calls_a_rule_refused",
            |driver| async move {
                ui::ready(&driver).await?;
                focus_on(&driver, "nav-sessions").await?;
                press(&driver, Key::Enter).await?;
                ui::click_on(&driver, css("[data-testid=\"session-row\"]"), "the session").await?;
                let marked =
                    text_contains(&driver, "transcript-rule-checks", "1 tool call (1 refused)")
                        .await?;
                ensure!(
                    marked.contains("npm install left-pad") && marked.contains("use-pnpm"),
                    "{marked}"
                );
                Ok(())
            },
        )
        .await
}
