//! Agents' instruction files beside the trust anchors: the project's AGENTS.md and the
//! user-wide CLAUDE.md are shown with the agent that loads each; an edit saved in the app
//! changes the file on disk and keeps the prior text in Ambry's archive; a secret is refused
//! with the file untouched and the typed text kept; typed text is never dropped without asking;
//! a missing CLAUDE.md is created; the compose preview lists what the agent loads by itself.

use std::path::{Path, PathBuf};

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::resize;
use crate::seed::Sandbox;
use crate::ui::{self, click, click_on, css, testid, text_contains, value_of};

const AGENTS_MD: &str = "# Shop\n\nRun `make test` before every commit.\n";
const EDITED: &str = "# Shop\n\nRun `make check` before every commit.\n";

/// With `AMBRY_E2E_SCREENSHOTS=all`, a picture of the window at this point (to look at).
async fn shoot(driver: &WebDriver, label: &str) -> TestResult {
    if std::env::var("AMBRY_E2E_SCREENSHOTS").is_ok_and(|v| v == "all") {
        let theme = if std::env::var("GTK_THEME").is_ok_and(|t| t.contains("dark")) {
            "-dark"
        } else {
            ""
        };
        capture(driver, &format!("{label}{theme}")).await?;
    }
    Ok(())
}

/// Puts multi-line text in the editor as a paste would (WebKitWebDriver's typing drops line
/// breaks in a textarea), with the input event the page listens to.
async fn paste(driver: &WebDriver, text: &str) -> TestResult {
    let editor = testid(driver, "instruction-editor").await?;
    editor.focus().await?;
    driver
        .execute(
            "const t = document.querySelector('[data-testid=\"instruction-editor\"]'); t.value = arguments[0]; t.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![serde_json::json!(text)],
        )
        .await?;
    Ok(())
}

/// `(kind, exists)` of each file the list shows, top to bottom.
async fn listed(driver: &WebDriver) -> TestResult<Vec<(String, bool)>> {
    let mut out = Vec::new();
    for row in driver.find_all(ui::tid("instruction-row")).await? {
        let kind = row.attr("data-kind").await?.unwrap_or_default();
        out.push((
            kind,
            row.attr("data-exists").await?.as_deref() == Some("true"),
        ));
    }
    Ok(out)
}

async fn open_row(driver: &WebDriver, kind: &str) -> TestResult {
    click_on(
        driver,
        css(&format!(
            "[data-testid=\"instruction-row\"][data-kind=\"{kind}\"]"
        )),
        &format!("the {kind} row"),
    )
    .await?;
    ui::shown(
        driver,
        css(&format!(
            "[data-testid=\"instruction-row\"][data-kind=\"{kind}\"].selected"
        )),
        &format!("{kind} to be selected"),
    )
    .await?;
    Ok(())
}

fn archived(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn agents_files_are_viewed_edited_archived_and_guarded() -> TestResult {
    let sandbox = Sandbox::new()?;
    let project = sandbox.add_project("shop")?;
    std::fs::write(project.root.join("AGENTS.md"), AGENTS_MD)?;
    std::fs::create_dir_all(sandbox.user_home.join(".claude"))?;
    std::fs::write(
        sandbox.user_home.join(".claude/CLAUDE.md"),
        "Answer briefly.\n",
    )?;
    // Codex's own AGENTS.md for every project is one of the person's files too.
    std::fs::create_dir_all(sandbox.user_home.join(".codex"))?;
    std::fs::write(
        sandbox.user_home.join(".codex/AGENTS.md"),
        "Prefer small commits.\n",
    )?;
    let agents_md = project.root.join("AGENTS.md");
    let claude_md = project.root.join("CLAUDE.md");
    let archive = sandbox
        .home
        .join("instructions-archive")
        .join(&project.slug)
        .join("project-agents");
    let slug = project.slug.clone();

    sandbox
        .run("agents_files_are_viewed_edited_archived_and_guarded", move |driver| async move {
            ui::ready(&driver).await?;
            resize(&driver, 1280, 800).await?;
            // From the project's memories, "Agents' files" opens on that project.
            ui::open_project(&driver, &slug).await?;
            click(&driver, "nav-instructions").await?;
            testid(&driver, "instructions-view").await?;
            let rows = ui::eventually("the six files of the project and the user", || {
                let driver = driver.clone();
                async move {
                    let rows = listed(&driver).await?;
                    Ok((rows.len() == 6).then_some(rows))
                }
            })
            .await?;
            let expected = [
                ("user_claude", true),
                ("user_agents", true),
                ("project_claude", false),
                ("project_dot_claude", false),
                ("project_local_claude", false),
                ("project_agents", true),
            ];
            ensure!(
                rows.iter().map(|(k, e)| (k.as_str(), *e)).collect::<Vec<_>>() == expected,
                "the list shows {rows:?}"
            );
            // The repository's existing file opens first, with the agent that loads it.
            text_contains(&driver, "instruction-title", "AGENTS.md").await?;
            text_contains(&driver, "instruction-body", "make test").await?;
            let agent = testid(&driver, "instruction-loaded-by").await?.attr("data-agent").await?;
            ensure!(agent.as_deref() == Some("codex"), "AGENTS.md is loaded by {agent:?}");
            text_contains(&driver, "instruction-path", &agents_md.display().to_string()).await?;
            shoot(&driver, "instructions-view").await?;

            // Edit and save: the file changes on disk, the prior text is archived.
            click(&driver, "instruction-edit").await?;
            paste(&driver, EDITED).await?;
            shoot(&driver, "instructions-editor").await?;
            click(&driver, "instruction-save").await?;
            text_contains(&driver, "instruction-body", "make check").await?;
            ensure!(std::fs::read_to_string(&agents_md)? == EDITED, "AGENTS.md on disk: {:?}", std::fs::read_to_string(&agents_md)?);
            let versions = archived(&archive);
            ensure!(versions.len() == 1, "archived versions under {}: {versions:?}", archive.display());
            ensure!(std::fs::read_to_string(&versions[0])? == AGENTS_MD, "the archive holds {:?}", std::fs::read_to_string(&versions[0])?);
            text_contains(&driver, "instruction-archived", "1 earlier version").await?;

            // A secret is refused: the file is unchanged and the typed text stays in the editor.
            click(&driver, "instruction-edit").await?;
            let secret = "# Shop\n\nDeploy with AKIAZ3MXQ7V2LPRT4K9B.\n";
            paste(&driver, secret).await?;
            click(&driver, "instruction-save").await?;
            let error = testid(&driver, "instruction-error").await?;
            ensure!(error.attr("data-code").await?.as_deref() == Some("secret_detected"), "the refusal's code: {:?}", error.attr("data-code").await?);
            text_contains(&driver, "instruction-error", "secret").await?;
            shoot(&driver, "instructions-secret-refused").await?;
            ensure!(std::fs::read_to_string(&agents_md)? == EDITED, "a refused save changed AGENTS.md");
            ensure!(archived(&archive).len() == 1, "a refused save archived a version");
            let kept = value_of(&testid(&driver, "instruction-editor").await?).await?;
            ensure!(kept == secret, "the editor lost the typed text: {kept:?}");

            // Unsaved typing: another file asks first, and keeping the edit keeps every character.
            open_row_expecting_question(&driver, "user_claude").await?;
            click(&driver, "confirm-cancel").await?;
            ui::gone(&driver, ui::tid("confirm-dialog"), "the question to close").await?;
            ensure!(value_of(&testid(&driver, "instruction-editor").await?).await? == secret, "keeping the edit changed it");
            // Leaving the view asks too; discarding leaves the file as it was.
            click(&driver, "nav-user").await?;
            text_contains(&driver, "confirm-dialog", "Discard changes?").await?;
            click(&driver, "confirm-ok").await?;
            text_contains(&driver, "memories-title", "User memories").await?;
            ensure!(std::fs::read_to_string(&agents_md)? == EDITED, "discarding wrote AGENTS.md");

            // A missing CLAUDE.md is shown as such and can be written from the app.
            ui::open_project(&driver, &slug).await?;
            click(&driver, "nav-instructions").await?;
            open_row(&driver, "project_claude").await?;
            text_contains(&driver, "instruction-missing", "does not exist").await?;
            shoot(&driver, "instructions-missing").await?;
            click(&driver, "instruction-create").await?;
            paste(&driver, "Use the staging database for tests.\n").await?;
            crate::keys::press_ctrl(&driver, "s").await?;
            text_contains(&driver, "instruction-body", "staging database").await?;
            ensure!(
                std::fs::read_to_string(&claude_md)? == "Use the staging database for tests.\n",
                "CLAUDE.md was not created as typed"
            );
            ui::shown(&driver, css("[data-testid=\"instruction-row\"][data-kind=\"project_claude\"][data-exists=\"true\"]"), "CLAUDE.md listed as present").await?;

            // The compose preview lists what each agent loads by itself in this project.
            ui::open_compose(&driver).await?;
            driver
                .execute(
                    "const s = document.querySelector('[data-testid=\"compose-project\"]'); s.value = arguments[0]; s.dispatchEvent(new Event('change', { bubbles: true }));",
                    vec![serde_json::json!(slug)],
                )
                .await?;
            let kinds = ui::eventually("the compose preview to list the agents' own files", || {
                let driver = driver.clone();
                async move {
                    let mut kinds = Vec::new();
                    for row in driver.find_all(ui::tid("compose-agent-file")).await? {
                        let kind = row.attr("data-kind").await?.unwrap_or_default();
                        kinds.push((kind, row.attr("data-agents").await?.unwrap_or_default()));
                    }
                    Ok((kinds.len() == 4).then_some(kinds))
                }
            })
            .await?;
            let want = [("user_claude", "claude"), ("user_agents", "codex"), ("project_claude", "claude"), ("project_agents", "codex")];
            ensure!(
                kinds.iter().map(|(k, a)| (k.as_str(), a.as_str())).collect::<Vec<_>>() == want,
                "the compose preview lists {kinds:?}"
            );
            let block = testid(&driver, "compose-output").await?.text().await?;
            ensure!(!block.contains("make check") && !block.contains("staging database"), "Ambry repeated an agent's file in its block: {block}");
            shoot(&driver, "compose-agent-files").await?;

            // The same views at 800×600; a file in the preview opens in the agents' files view.
            resize(&driver, 800, 600).await?;
            shoot(&driver, "compose-agent-files-800").await?;
            let link = driver.find(css("[data-testid=\"compose-agent-file\"][data-kind=\"project_agents\"] button")).await?;
            link.scroll_into_view().await?;
            link.click().await?;
            testid(&driver, "instructions-view").await?;
            text_contains(&driver, "instruction-title", "AGENTS.md").await?;
            text_contains(&driver, "instruction-body", "make check").await?;
            shoot(&driver, "instructions-view-800").await?;
            Ok(())
        })
        .await
}

/// Clicks another file's row while the editor holds typed text: the discard question appears.
async fn open_row_expecting_question(driver: &WebDriver, kind: &str) -> TestResult {
    click_on(
        driver,
        css(&format!(
            "[data-testid=\"instruction-row\"][data-kind=\"{kind}\"]"
        )),
        &format!("the {kind} row"),
    )
    .await?;
    text_contains(driver, "confirm-dialog", "Discard changes?").await?;
    Ok(())
}

/// The project chosen in Agents' files stays chosen when they are opened again from a view
/// without a project (Settings), by the sidebar and by Ctrl+K.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_project_chosen_in_agents_files_survives_a_trip_to_settings() -> TestResult {
    let sandbox = Sandbox::new()?;
    let project = sandbox.add_project("shop")?;
    std::fs::write(project.root.join("AGENTS.md"), AGENTS_MD)?;
    let slug = project.slug.clone();
    sandbox
        .run(
            "the_project_chosen_in_agents_files_survives_a_trip_to_settings",
            move |driver| async move {
                ui::open_user_memories(&driver).await?;
                click(&driver, "nav-instructions").await?;
                let picker = testid(&driver, "instructions-project").await?;
                ensure!(
                    value_of(&picker).await?.is_empty(),
                    "from the user memories it opens on a project already"
                );
                thirtyfour::components::SelectElement::new(&picker)
                    .await?
                    .select_by_value(&slug)
                    .await?;
                open_row(&driver, "project_agents").await?;
                for how in ["the sidebar", "Ctrl+K"] {
                    click(&driver, "nav-settings").await?;
                    testid(&driver, "settings-view").await?;
                    if how == "the sidebar" {
                        click(&driver, "nav-instructions").await?;
                    } else {
                        crate::keys::press_ctrl(&driver, "k").await?;
                        ui::fill(&testid(&driver, "search-input").await?, ">agents files").await?;
                        click_on(
                            &driver,
                            css("[data-testid=\"palette-item\"][data-key=\"agents-files\"]"),
                            "Agents' files in the palette",
                        )
                        .await?;
                    }
                    testid(&driver, "instructions-view").await?;
                    let chosen = ui::eventually(&format!("the picker after {how}"), || {
                        let driver = driver.clone();
                        async move {
                            let v =
                                value_of(&testid(&driver, "instructions-project").await?).await?;
                            Ok((!v.is_empty()).then_some(v))
                        }
                    })
                    .await
                    .map_err(|e| {
                        format!("opened from Settings by {how}, the picker was reset: {e}")
                    })?;
                    ensure!(
                        chosen == slug,
                        "opened from Settings by {how}, the picker shows {chosen:?}"
                    );
                    ui::shown(
                        &driver,
                        css("[data-testid=\"instruction-row\"][data-kind=\"project_agents\"]"),
                        "the project's AGENTS.md in the list",
                    )
                    .await?;
                }
                Ok(())
            },
        )
        .await
}
