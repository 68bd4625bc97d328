//! Sessions: the app indexes transcripts of all three sources on its own (Ambry's under
//! AMBRY_HOME/sessions, Claude Code's under ~/.claude/projects, in their real format), recall
//! highlights the matched words, a hit opens its transcript as turns with the hit marked (tool
//! calls folded), the source filter narrows the results, and a line appended to a transcript becomes searchable
//! without a reload.

use std::io::Write;

use thirtyfour::prelude::*;

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui::{self, css, testid};

const CLAUDE_SESSION: &str = "55604662-cf2a-4331-851a-ec234028f8ca";

/// `(session id, source, highlighted words)` of each recall hit, in order.
async fn hits(driver: &WebDriver) -> TestResult<Vec<(String, String, Vec<String>)>> {
    let mut out = Vec::new();
    for hit in driver.find_all(ui::tid("recall-hit")).await? {
        let id = hit.attr("data-session-id").await?.unwrap_or_default();
        let source = hit.attr("data-source").await?.unwrap_or_default();
        let mut marks = Vec::new();
        for mark in hit.find_all(By::Css("mark")).await? {
            marks.push(mark.text().await?.to_lowercase());
        }
        out.push((id, source, marks));
    }
    Ok(out)
}

async fn search(driver: &WebDriver, query: &str) -> TestResult {
    ui::fill(&testid(driver, "sessions-query").await?, query).await
}

async fn hits_until(
    driver: &WebDriver,
    what: &str,
    ok: impl Fn(&[(String, String, Vec<String>)]) -> bool,
) -> TestResult<Vec<(String, String, Vec<String>)>> {
    let seen = std::sync::Mutex::new(Vec::new());
    let outcome = ui::eventually(what, || {
        let (seen, ok) = (&seen, &ok);
        async move {
            let found = hits(driver).await?;
            *seen.lock().unwrap() = found.clone();
            Ok(ok(&found).then_some(found))
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; the list shows {:?}", seen.lock().unwrap()).into())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn recall_highlights_matches_opens_transcripts_filters_and_follows_appends() -> TestResult {
    let sandbox = Sandbox::new()?;
    let keys = [
        ("user", "How do we rotate the signing keys for release builds?"),
        ("assistant", "Rotate them every quarter with the vault CLI; the previous key stays valid for a week."),
        ("user", "And who gets paged when a rotation fails?"),
    ];
    sandbox.write_session(
        "keys-rotation",
        "Rotating signing keys",
        &sandbox.user_home,
        &keys,
    )?;
    let pets = [
        ("user", "What should the kitten eat?"),
        ("assistant", "Wet food twice a day."),
    ];
    let pets_file =
        sandbox.write_session("pet-care", "Feeding the kitten", &sandbox.user_home, &pets)?;
    // A real Claude Code transcript (2.1.38), where Claude Code keeps it.
    let claude_dir = sandbox
        .user_home
        .join(".claude/projects/-home-marco-projects-spotter");
    std::fs::create_dir_all(&claude_dir)?;
    let sample = crate::harness::manifest_dir()
        .join("src-tauri/core/tests/fixtures/formats/claude-code/short.jsonl");
    std::fs::copy(&sample, claude_dir.join(format!("{CLAUDE_SESSION}.jsonl")))?;

    sandbox
        .run("recall_highlights_matches_opens_transcripts_filters_and_follows_appends", move |driver| async move {
            ui::ready(&driver).await?;
            ui::click(&driver, "nav-sessions").await?;
            testid(&driver, "sessions-view").await?;
            // Indexed in the background at launch: no reindex needed.
            let summary = ui::text_contains(&driver, "sessions-summary", "3 sessions").await?;
            ensure!(summary.contains("messages indexed"), "sessions summary: {summary:?}");
            let expected = ["Feeding the kitten", "Rotating signing keys", "mix phx.server doesnt seem to start"];
            let seen = std::sync::Mutex::new(Vec::new());
            ui::eventually("the three recent sessions, by title", || {
                let seen = &seen;
                let driver = driver.clone();
                async move {
                    let mut titles = Vec::new();
                    for row in driver.find_all(css("[data-testid=\"session-row\"] .row-name")).await? {
                        titles.push(row.prop("textContent").await?.unwrap_or_default());
                    }
                    titles.sort();
                    *seen.lock().unwrap() = titles.clone();
                    Ok((titles == expected).then_some(()))
                }
            })
            .await
            .map_err(|e| format!("{e}; the list shows {:?}", seen.lock().unwrap()))?;

            search(&driver, "signing keys").await?;
            let found = hits_until(&driver, "a recall hit in the keys session", |h| !h.is_empty()).await?;
            let (id, source, marks) = &found[0];
            ensure!(id == "keys-rotation" && source == "ambry", "first hit for \"signing keys\": {found:?}");
            ensure!(
                marks.iter().any(|m| m == "signing") && marks.iter().any(|m| m == "keys"),
                "the matched words are not highlighted in the snippet: marks {marks:?}"
            );
            ensure!(found.len() == 1, "one entry per session with matches, saw {found:?}");

            // The session's first matching turn (its best), clicked where a person would.
            ui::click_on(&driver, css("[data-testid=\"recall-hit\"][data-session-id=\"keys-rotation\"] [data-testid=\"recall-snippet\"]"), "the keys hit's best turn").await?;
            ui::text_contains(&driver, "transcript-title", "Rotating signing keys").await?;
            let mut roles = Vec::new();
            for turn in driver.find_all(ui::tid("transcript-turn")).await? {
                roles.push(turn.attr("data-role").await?.unwrap_or_default());
            }
            ensure!(roles == ["user", "assistant", "user"], "transcript turns by role: {roles:?}");
            let marked = driver.find(css("[data-testid=\"transcript-turn\"].turn-hit")).await?.text().await?;
            ensure!(marked.contains("rotate the signing keys"), "the hit's turn is not the marked one: {marked:?}");

            // The Claude Code transcript, and the source filter.
            search(&driver, "phx server").await?;
            hits_until(&driver, "the Claude Code session to match \"phx server\"", |h| {
                h.first().is_some_and(|(id, source, marks)| id == CLAUDE_SESSION && source == "claude" && marks.contains(&"phx".to_string()))
            })
            .await?;
            // Its transcript: the person's and the agent's words in full, tool calls folded.
            ui::click_on(&driver, css(&format!("[data-testid=\"recall-hit\"][data-session-id=\"{CLAUDE_SESSION}\"]")), "the Claude Code hit").await?;
            ui::text_contains(&driver, "transcript-title", "mix phx.server doesnt seem to start").await?;
            let tools = driver.find_all(css("[data-testid=\"transcript-turn\"][data-role=\"tool\"] details")).await?;
            ensure!(tools.len() >= 2, "the Claude Code transcript shows {} folded tool turns", tools.len());
            for fold in &tools {
                ensure!(fold.attr("open").await?.is_none(), "a tool turn is unfolded: {}", fold.text().await?);
            }
            ui::click_on(&driver, css("[data-testid=\"sessions-source\"] option[value=\"codex\"]"), "Codex in the source filter").await?;
            ui::text_contains(&driver, "sessions-empty", "No match").await?;
            ui::click_on(&driver, css("[data-testid=\"sessions-source\"] option[value=\"claude\"]"), "Claude Code in the source filter").await?;
            hits_until(&driver, "the Claude Code hit back under the claude filter", |h| !h.is_empty() && h.iter().all(|(id, _, _)| id == CLAUDE_SESSION)).await?;
            ui::click_on(&driver, css("[data-testid=\"sessions-source\"] option[value=\"\"]"), "All sources in the source filter").await?;

            // An agent appends a turn while the person's search is on screen: the watcher
            // indexes it and the results update without retyping.
            search(&driver, "parrot").await?;
            ui::text_contains(&driver, "sessions-empty", "No match").await?;
            let mut file = std::fs::OpenOptions::new().append(true).open(&pets_file)?;
            writeln!(file, "{}", serde_json::json!({ "ts": "2026-11-02T09:05:00Z", "role": "user", "text": "The parrot needs a bigger cage." }))?;
            drop(file);
            let live = hits_until(&driver, "the appended turn to show up in the open search", |h| h.len() == 1).await?;
            ensure!(live[0].0 == "pet-care", "hit for the appended turn: {live:?}");
            ensure!(live[0].2 == ["parrot"], "highlight of the appended turn: {live:?}");
            Ok(())
        })
        .await
}
