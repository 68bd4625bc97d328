//! The sessions list as a person reads it: a Claude Code subagent run (here the one that
//! compacts the conversation) is folded under its session instead of listed as another one; the
//! list and the transcript count the same unit; the project filter offers Claude Code's project
//! folder though Ambry has never seen that project; and an open transcript follows the turns an
//! agent appends.

use std::io::Write;

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, css, testid};

const SESSION: &str = "55604662-cf2a-4331-851a-ec234028f8ca";
const CWD: &str = "/home/marco/projects/spotter";

fn claude_line(kind: &str, text: &str, ts: &str) -> String {
    serde_json::json!({
        "parentUuid": null, "isSidechain": true, "userType": "external", "cwd": CWD, "sessionId": SESSION,
        "version": "2.1.38", "type": kind, "timestamp": ts,
        "message": { "role": kind, "content": text },
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn runs_fold_under_their_session_counts_agree_and_the_open_transcript_follows() -> TestResult
{
    let sandbox = Sandbox::new()?;
    let claude_dir = sandbox
        .user_home
        .join(".claude/projects/-home-marco-projects-spotter");
    std::fs::create_dir_all(claude_dir.join(SESSION).join("subagents"))?;
    let sample = crate::harness::manifest_dir()
        .join("src-tauri/core/tests/fixtures/formats/claude-code/short.jsonl");
    std::fs::copy(&sample, claude_dir.join(format!("{SESSION}.jsonl")))?;
    let compaction = [
        claude_line("user", "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests.", "2026-02-10T22:00:00Z"),
        claude_line("assistant", "Summary: the phx server did not start because of a missing dependency.", "2026-02-10T22:00:30Z"),
    ];
    std::fs::write(
        claude_dir
            .join(SESSION)
            .join("subagents/agent-a1b2c3.jsonl"),
        compaction.join("\n") + "\n",
    )?;
    let notes = sandbox.write_session(
        "release-notes",
        "Writing the release notes",
        &sandbox.user_home,
        &[
            ("user", "Draft the release notes."),
            ("assistant", "Here is a draft."),
        ],
    )?;

    sandbox
        .run("runs_fold_under_their_session_counts_agree_and_the_open_transcript_follows", move |driver| async move {
            ui::ready(&driver).await?;
            ui::click(&driver, "nav-sessions").await?;
            let parent = format!("[data-testid=\"session-row\"][data-session-id=\"{SESSION}\"]");
            ui::shown(&driver, css(&parent), "the Claude Code session").await?;
            // The compaction run is under its session, not a session of its own.
            let run = ui::shown(&driver, css(&format!("{parent} [data-testid=\"session-run\"]")), "the run under its session").await?;
            ensure!(run.attr("data-kind").await?.as_deref() == Some("compaction"), "the run's kind: {:?}", run.attr("data-kind").await?);
            let run_text = run.text().await?;
            ensure!(!run_text.contains("Your task is to create"), "the compaction run is titled by its prompt: {run_text:?}");
            let mut ids = Vec::new();
            for row in driver.find_all(ui::tid("session-row")).await? {
                ids.push(row.attr("data-session-id").await?.unwrap_or_default());
            }
            ensure!(ids.len() == 2 && !ids.iter().any(|i| i.contains('/')), "sessions listed: {ids:?}");

            // One unit: the list's count is the transcript's.
            let description = driver.find(css(&format!("{parent} .row-description"))).await?.text().await?;
            let listed = description.split_whitespace().find_map(|w| w.parse::<u32>().ok()).ok_or("no count in the row")?;
            ensure!(description.contains(&format!("{listed} message")), "the row says {description:?}");
            ui::click_on(&driver, css(&format!("{parent} .row-top")), "the session's title").await?;
            let count = ui::text_contains(&driver, "transcript-count", "message").await?;
            ensure!(count.starts_with(&format!("{listed} message")), "list says {listed}, transcript says {count:?}");

            // Claude Code's project folder is a choice in the project filter.
            let option = css(&format!("[data-testid=\"sessions-project\"] option[value=\"d:{CWD}\"]"));
            ui::eventually("Claude Code's project folder in the filter", || {
                let option = option.clone();
                let driver = driver.clone();
                async move { Ok((!driver.find_all(option).await?.is_empty()).then_some(())) }
            })
            .await?;
            ui::click_on(&driver, option.clone(), "the spotter folder").await?;
            ui::eventually("only the spotter session listed", || async {
                let rows = driver.find_all(ui::tid("session-row")).await?;
                let mut ids = Vec::new();
                for r in rows {
                    ids.push(r.attr("data-session-id").await?.unwrap_or_default());
                }
                Ok((ids == [SESSION]).then_some(()))
            })
            .await?;
            ui::click_on(&driver, css("[data-testid=\"sessions-project\"] option[value=\"\"]"), "All projects").await?;

            // An open transcript follows what the agent appends.
            ui::click_on(&driver, css("[data-testid=\"session-row\"][data-session-id=\"release-notes\"]"), "the release notes session").await?;
            ui::text_contains(&driver, "transcript-count", "2 messages").await?;
            let mut file = std::fs::OpenOptions::new().append(true).open(&notes)?;
            writeln!(file, "{}", serde_json::json!({ "ts": "2026-11-02T09:05:00Z", "role": "user", "text": "Mention the new CSV export." }))?;
            drop(file);
            ui::text_contains(&driver, "transcript-count", "3 messages").await?;
            ui::text_contains(&driver, "transcript-view", "Mention the new CSV export.").await?;
            testid(&driver, "transcript-title").await?;
            Ok(())
        })
        .await
}
