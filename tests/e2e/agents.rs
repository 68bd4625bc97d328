//! How memories get in, on a new home: the first screen offers to connect Claude Code and Codex
//! (showing what will change before anything does), to add a project, and to index past sessions
//! (naming the folders read). Connecting Claude Code from the window writes its hook and MCP
//! server into Claude Code's own files and leaves every other key as it was; the Settings card
//! shows it connected; disconnecting there puts both files back byte for byte. All of it by
//! keyboard: Enter on a button, Enter to confirm, Esc to cancel, focus kept where the person was.
//!
//! Claude Code's and Codex's folders are temporary (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`), seeded
//! with settings a person already has.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{self, press};
use crate::seed::Sandbox;
use crate::ui::{self, css, testid};

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON") + "\n"
}

fn read_json(path: &Path) -> TestResult<Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not JSON after the app wrote it: {e}\n{text}",
            path.display()
        )
    })?)
}

/// The agent row's `data-connected` once it equals `want`.
async fn row_connected(driver: &WebDriver, agent: &str, want: bool) -> TestResult {
    let selector =
        format!("[data-testid=\"agent-row\"][data-agent=\"{agent}\"][data-connected=\"{want}\"]");
    ui::shown(
        driver,
        css(&selector),
        &format!("the {agent} row to show connected={want}"),
    )
    .await?;
    Ok(())
}

/// The visible text of the displayed `agent-state` in `agent`'s row.
async fn state_text(driver: &WebDriver, agent: &str) -> TestResult<String> {
    let selector = format!(
        "[data-testid=\"agent-row\"][data-agent=\"{agent}\"] [data-testid=\"agent-state\"]"
    );
    Ok(
        ui::shown(driver, css(&selector), &format!("{agent}'s state"))
            .await?
            .text()
            .await?,
    )
}

/// The Health card's first check of `area`: `(status, its text, its dot's fill, its dot's ring)`.
async fn health_check(
    driver: &WebDriver,
    area: &str,
) -> TestResult<(String, String, String, String)> {
    let seen = std::sync::Mutex::new(None);
    let outcome = ui::eventually(&format!("the health check of {area}"), || {
        let seen = &seen;
        async move {
            let v = driver
                .execute(
                    r#"const c = document.querySelector(`[data-testid="doctor-check"][data-area="${arguments[0]}"]`);
                       if (!c) return null;
                       const dot = getComputedStyle(c.querySelector('[data-testid="check-dot"]'));
                       return [c.dataset.status, c.innerText, dot.backgroundColor, dot.boxShadow];"#,
                    vec![json!(area)],
                )
                .await?;
            let found: Option<(String, String, String, String)> = serde_json::from_value(v.json().clone())?;
            *seen.lock().unwrap() = found.clone();
            Ok(found)
        }
    })
    .await;
    outcome.map_err(|e| format!("{e}; saw {:?}", seen.lock().unwrap()).into())
}

async fn focused_agent_toggle(driver: &WebDriver) -> TestResult<String> {
    let v = driver
        .execute(
            "const el = document.activeElement; const row = el && el.closest('[data-testid=\"agent-row\"]');
             return el && el.dataset.testid === 'agent-toggle' && row ? row.dataset.agent : '';",
            vec![],
        )
        .await?;
    Ok(v.json().as_str().unwrap_or_default().to_string())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_new_home_shows_how_memories_get_in_and_connects_claude_code_from_the_window(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    let claude_dir = sandbox.user_home.join("claude-config");
    let codex_dir = sandbox.user_home.join("codex-home");
    std::fs::create_dir_all(&claude_dir)?;
    std::fs::create_dir_all(&codex_dir)?;
    let settings_path = claude_dir.join("settings.json");
    let state_path = claude_dir.join(".claude.json");
    let settings = pretty(&json!({
        "model": "opus",
        "cleanupPeriodDays": 90,
        "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }] }
    }));
    let state = pretty(&json!({
        "numStartups": 12,
        "mcpServers": { "docs": { "type": "stdio", "command": "npx", "args": ["-y", "docs-mcp"] } }
    }));
    std::fs::write(&settings_path, &settings)?;
    std::fs::write(&state_path, &state)?;
    // Claude Code's own program is installed here (a connection it cannot run is only
    // configured: see `honest_status`).
    let path = sandbox.agents_path(&["claude"])?;
    let env: Vec<(&str, &Path)> = vec![
        ("CLAUDE_CONFIG_DIR", &claude_dir),
        ("CODEX_HOME", &codex_dir),
        ("PATH", &path),
    ];
    let (settings_at, state_at, claude_at, codex_at) = (
        settings_path.clone(),
        state_path.clone(),
        claude_dir.clone(),
        codex_dir.clone(),
    );

    sandbox
        .run_with_env("a_new_home_shows_how_memories_get_in_and_connects_claude_code_from_the_window", &env, move |driver| async move {
            // The first screen, with nothing clicked: how memories get in.
            ui::ready(&driver).await?;
            let panel = testid(&driver, "first-run").await?;
            row_connected(&driver, "claude", false).await?;
            row_connected(&driver, "codex", false).await?;
            let toggles = ui::texts(&driver, ui::tid("agent-toggle")).await?;
            ensure!(toggles == ["Connect Claude Code", "Connect Codex"], "the agents' buttons: {toggles:?}");
            testid(&driver, "first-run-add-project").await?;
            testid(&driver, "first-run-reindex").await?;
            let folders = ui::text_contains(&driver, "first-run-folders", &codex_at.join("sessions").display().to_string()).await?;
            ensure!(
                folders.contains(&claude_at.join("projects").display().to_string()),
                "the first screen does not say past sessions are read from Claude Code's folder: {folders:?}"
            );
            let text = panel.text().await?;
            ensure!(text.contains("Projects") && text.contains("Past sessions"), "the first screen reads: {text}");
            capture(&driver, "first-run-panel").await?;

            // Enter on "Connect Claude Code" shows what will change, and changes nothing yet.
            keys::focus_on(&driver, "agent-toggle").await?;
            ensure!(focused_agent_toggle(&driver).await? == "claude", "the first agent button is not Claude Code's");
            press(&driver, Key::Enter).await?;
            let change = ui::text_contains(&driver, "agent-change", "UserPromptSubmit").await?;
            for needle in [settings_at.display().to_string(), state_at.display().to_string(), "compose --hook claude".into(), "mcpServers".into()] {
                ensure!(change.contains(&needle), "the planned change does not mention {needle:?}:\n{change}");
            }
            ensure!(std::fs::read_to_string(&settings_at)? == settings, "settings.json changed before the person confirmed");
            capture(&driver, "first-run-connect-dialog").await?;
            let focus = keys::focused(&driver).await?;
            ensure!(focus.testid == "confirm-ok", "the dialog opened with focus on {focus:?}, not on Connect");
            press(&driver, Key::Enter).await?;
            ui::gone(&driver, ui::tid("confirm-dialog"), "the dialog to close after Enter").await?;
            row_connected(&driver, "claude", true).await?;

            // Claude Code's own files now run Ambry, and keep everything else.
            let s = read_json(&settings_at)?;
            let hook = s["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"].as_str().unwrap_or_default().to_string();
            ensure!(hook.ends_with(" compose --hook claude"), "the hook in settings.json: {s}");
            ensure!(s["hooks"]["SessionStart"][0]["hooks"][0]["command"] == hook.as_str(), "no SessionStart hook: {s}");
            // The program is the first word (a non-default home follows as `--home DIR`).
            let program = hook.split(' ').next().unwrap_or_default().trim_matches('\'').to_string();
            ensure!(Path::new(&program).is_absolute() && Path::new(&program).is_file(), "the hook runs {program:?}, not the installed ambry");
            ensure!(s["hooks"]["UserPromptSubmit"][0]["hooks"][0]["type"] == "command", "the hook is not a command hook: {s}");
            ensure!(s["model"] == "opus" && s["cleanupPeriodDays"] == 90, "other settings changed: {s}");
            ensure!(s["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done", "the person's Stop hook changed: {s}");
            let c = read_json(&state_at)?;
            ensure!(c["mcpServers"]["ambry"]["command"] == program.as_str() && c["mcpServers"]["ambry"]["args"].as_array().and_then(|a| a.last()) == Some(&json!("mcp")), "the MCP server in .claude.json: {c}");
            ensure!(c["numStartups"] == 12 && c["mcpServers"]["docs"]["command"] == "npx", "other keys of .claude.json changed: {c}");
            let shown = state_text(&driver, "claude").await?;
            ensure!(shown.contains("hook installed") && shown.contains("MCP server installed"), "Claude Code's row says {shown:?}");

            // Focus stays on the agent's button, now Disconnect; Tab reaches Codex's; Esc in its
            // dialog cancels and writes nothing.
            ui::eventually("focus back on Claude Code's button", || async { Ok((focused_agent_toggle(&driver).await? == "claude").then_some(())) }).await?;
            press(&driver, Key::Tab).await?;
            ensure!(focused_agent_toggle(&driver).await? == "codex", "Tab from Claude Code's button went to {:?}", keys::focused(&driver).await?);
            press(&driver, Key::Enter).await?;
            let codex_change = ui::text_contains(&driver, "agent-change", "hooks.json").await?;
            ensure!(codex_change.contains("config.toml") && codex_change.contains("mcp_servers.ambry"), "Codex's planned change:\n{codex_change}");
            press(&driver, Key::Escape).await?;
            ui::gone(&driver, ui::tid("confirm-dialog"), "Esc to close Codex's dialog").await?;
            ensure!(!codex_at.join("config.toml").exists() && !codex_at.join("hooks.json").exists(), "cancelling wrote Codex's files");
            row_connected(&driver, "codex", false).await?;
            ensure!(focused_agent_toggle(&driver).await? == "codex", "after Esc focus is on {:?}", keys::focused(&driver).await?);

            // Settings shows the same connection, and disconnects it.
            ui::click(&driver, "nav-settings").await?;
            testid(&driver, "settings-view").await?;
            row_connected(&driver, "claude", true).await?;
            row_connected(&driver, "codex", false).await?;
            let shown = state_text(&driver, "claude").await?;
            ensure!(shown.contains("hook installed") && shown.contains("MCP server installed"), "Settings says {shown:?}");
            // The Health card's dots follow the state, and the words say it too: a connected
            // agent is a green dot, one left unconnected a hollow ring (not set up, no fault).
            let (status, text, connected_fill, _) = health_check(&driver, "claude code").await?;
            ensure!(status == "ok" && text.contains("connected ("), "Claude Code's health check: {status} {text:?}");
            let (status, text, off_fill, off_ring) = health_check(&driver, "codex").await?;
            ensure!(status == "off" && (text.contains("not connected") || text.contains("not installed here")), "Codex's health check: {status} {text:?}");
            ensure!(off_fill != connected_fill && off_ring != "none", "not connected is drawn like connected: fill {off_fill} vs {connected_fill}, ring {off_ring}");
            let codex_row = testid(&driver, "agents-card").await?.find(By::Css("[data-agent=\"codex\"]")).await?;
            ensure!(codex_row.attr("data-status").await?.as_deref() == Some("off"), "Codex's row status: {:?}", codex_row.attr("data-status").await?);
            let word = codex_row.find(By::Css("[data-testid=\"agent-state-word\"]")).await?.text().await?;
            ensure!(word == "Not connected", "Codex's row says {word:?}");
            capture(&driver, "settings-agents-card").await?;
            keys::focus_on(&driver, "agent-toggle").await?;
            ensure!(focused_agent_toggle(&driver).await? == "claude", "the first button in Settings' card is not Claude Code's");
            press(&driver, Key::Enter).await?;
            ui::text_contains(&driver, "agent-change", "removed").await?;
            press(&driver, Key::Enter).await?;
            row_connected(&driver, "claude", false).await?;
            ui::eventually("Claude Code's health check to say not connected", || async {
                let (status, text, _, _) = health_check(&driver, "claude code").await?;
                Ok((status == "off" && text.contains("not connected")).then_some(()))
            })
            .await?;
            ensure!(std::fs::read_to_string(&settings_at)? == settings, "disconnect did not restore settings.json byte for byte:\n{}", std::fs::read_to_string(&settings_at)?);
            ensure!(std::fs::read_to_string(&state_at)? == state, "disconnect did not restore .claude.json byte for byte:\n{}", std::fs::read_to_string(&state_at)?);
            ensure!(backups(&claude_at)?.len() == 2, "connect keeps each prior file once; a disconnect back to those bytes adds none: {:?}", backups(&claude_at)?);
            Ok(())
        })
        .await
}

fn backups(dir: &Path) -> TestResult<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.contains(".ambry-backup-"))
        {
            out.push(path);
        }
    }
    Ok(out)
}
