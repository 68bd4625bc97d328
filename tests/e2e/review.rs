//! The Review view by keyboard alone (DESIGN §14): a project's inbox shows a duplicate, a
//! conflict and a memory naming a file its repository removed, each with its evidence; merging
//! the duplicate, superseding one side of the conflict and keeping the stale one are each checked
//! on disk and in the archive, and the count beside the Review entry drops with each.

use std::path::PathBuf;

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{focus_on, press, press_ctrl, resize};
use crate::seed::Sandbox;
use crate::ui::{self, css, eventually, shown, testid, text_contains};

/// Saves a screenshot named for the theme when `AMBRY_E2E_SCREENSHOTS=all`.
/// Two user memories the review asks about ("duplicate or conflict?"): one says the install
/// moved on from what the other still describes.
pub(crate) fn save_pair_that_moved_on(sandbox: &Sandbox) -> TestResult {
    sandbox.save_user(
        "pkg-install",
        "project",
        "How dependencies are installed",
        "Dependencies are installed with the workspace install at the repository root.\n",
    )?;
    sandbox.save_user(
        "pkg-install-now",
        "project",
        "How dependencies are installed now",
        "Dependencies are no longer installed per package; they are installed with the workspace install at the repository root.\n",
    )?;
    Ok(())
}

pub(crate) async fn shoot(driver: &WebDriver, label: &str) -> TestResult {
    if std::env::var("AMBRY_E2E_SCREENSHOTS").is_ok_and(|v| v == "all") {
        let theme = if std::env::var("GTK_THEME").is_ok_and(|t| t.contains("dark")) {
            "-dark"
        } else {
            ""
        };
        // After two frames, so the picture is of what the DOM already says.
        driver
            .execute_async(
                "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done()));",
                vec![],
            )
            .await?;
        capture(driver, &format!("{label}{theme}")).await?;
    }
    Ok(())
}

/// The count beside the Review entry, once it reads `n`.
pub(crate) async fn count_is(driver: &WebDriver, n: usize) -> TestResult {
    let want = n.to_string();
    eventually(&format!("the Review count to read {n}"), || {
        let want = want.clone();
        async move {
            let count = driver.find(ui::tid("nav-review-count")).await?;
            let now = count.attr("data-count").await?.unwrap_or_default();
            Ok((now == want).then_some(()))
        }
    })
    .await
}

/// Opens the Review view from the sidebar by keyboard.
pub(crate) async fn open(driver: &WebDriver) -> TestResult {
    focus_on(driver, "nav-review").await?;
    press(driver, Key::Enter).await
}

/// Once the app is ready with exactly one finding, opens the Review view by keyboard.
pub(crate) async fn open_with_one_finding(driver: &WebDriver) -> TestResult {
    ui::ready(driver).await?;
    count_is(driver, 1).await?;
    open(driver).await
}

/// `(kind, names)` of the finding that has focus, if one has.
pub(crate) async fn focused_finding(
    driver: &WebDriver,
) -> TestResult<Option<(String, Vec<String>)>> {
    let v = driver
        .execute(
            "const el = document.activeElement; return el && el.dataset.testid === 'review-finding' ? [el.dataset.kind, el.dataset.names] : null;",
            vec![],
        )
        .await?;
    let pair: Option<(String, String)> = serde_json::from_value(v.json().clone())?;
    Ok(pair.map(|(k, n)| (k, n.split(' ').map(str::to_string).collect())))
}

/// Moves focus to the finding of `kind` with the keys a person uses (Home, then ↓); returns its
/// memory names in the order the finding shows them.
pub(crate) async fn go_to(driver: &WebDriver, kind: &str) -> TestResult<Vec<String>> {
    eventually("a finding to have focus", || async move {
        Ok(focused_finding(driver).await?.map(|_| ()))
    })
    .await?;
    press(driver, Key::Home).await?;
    for _ in 0..6 {
        if let Some((k, names)) = focused_finding(driver).await? {
            if k == kind {
                return Ok(names);
            }
        }
        press(driver, Key::Down).await?;
    }
    Err(format!("no {kind} finding reached with ↓").into())
}

/// Types one letter wherever focus is (a finding's action key).
pub(crate) async fn letter(driver: &WebDriver, key: &str) -> TestResult {
    driver.action_chain().send_keys(key).perform().await?;
    Ok(())
}

async fn read(path: PathBuf) -> TestResult<String> {
    Ok(std::fs::read_to_string(path)?)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_merges_a_duplicate_supersedes_a_conflict_and_keeps_a_stale_one_by_keyboard(
) -> TestResult {
    let sandbox = Sandbox::new()?;
    let shop = sandbox.add_project("shop")?;
    // A real history: the script existed, then a commit removed it.
    std::fs::create_dir_all(shop.root.join("legacy"))?;
    std::fs::write(shop.root.join("legacy/run.sh"), "echo run\n")?;
    std::fs::write(shop.root.join("README.md"), "shop\n")?;
    sandbox.git(&shop.root, &["add", "-A"])?;
    sandbox.git(&shop.root, &["commit", "-qm", "Start"])?;
    sandbox.git(&shop.root, &["rm", "-rq", "legacy"])?;
    sandbox.git(&shop.root, &["commit", "-qm", "Remove the legacy scripts"])?;
    sandbox.save_project(
        &shop,
        "how-to-run",
        "project",
        "Running locally",
        "Start it with legacy/run.sh from the root.\n",
    )?;
    sandbox.save_user(
        "test-style",
        "feedback",
        "How tests are written",
        "Tests use real databases, never mocks, and each test cleans up its own rows.\n",
    )?;
    sandbox.save_user(
        "test-rules",
        "feedback",
        "How tests are written here",
        "Tests use real databases, never mocks; each test cleans up its own rows.\n",
    )?;
    sandbox.save_user(
        "install-deps",
        "project",
        "How to install dependencies",
        "Run pnpm install at the repository root before building.\n",
    )?;
    sandbox.save_project(
        &shop,
        "setup-deps",
        "project",
        "Installing dependencies",
        "Run npm install at the repository root before building.\n",
    )?;
    let slug = shop.slug.clone();
    let user_file = |n: &str| sandbox.user_memory_file(n);
    let project_file = |n: &str| sandbox.project_memory_file(&shop, n);
    let stale_file = project_file("how-to-run");
    let files = |scope: &str, n: &str| {
        if scope == "user" {
            user_file(n)
        } else {
            project_file(n)
        }
    };
    let all_files: Vec<(String, String, PathBuf)> = [
        ("user", "test-style"),
        ("user", "test-rules"),
        ("user", "install-deps"),
        ("project", "setup-deps"),
    ]
    .iter()
    .map(|(s, n)| (s.to_string(), n.to_string(), files(s, n)))
    .collect();

    // What the scenario learns about which memory the UI kept, for the checks after it.
    let outcome = std::sync::Arc::new(std::sync::Mutex::new((Vec::new(), Vec::new())));
    let seen = outcome.clone();
    sandbox
        .run(
            "review_merges_a_duplicate_supersedes_a_conflict_and_keeps_a_stale_one_by_keyboard",
            |driver| async move {
                ui::ready(&driver).await?;
                // The project in view, then Review, by keyboard.
                focus_on(&driver, "nav-project").await?;
                press(&driver, Key::Enter).await?;
                shown(&driver, css(&format!("[data-testid=\"nav-project\"][data-project=\"{slug}\"][data-active=\"true\"]")), "the project to be in view").await?;
                count_is(&driver, 3).await?;
                shoot(&driver, "review-sidebar-count").await?;
                open(&driver).await?;
                text_contains(&driver, "review-count", "3 to review").await?;

                // The evidence: a stale path with its commit, the conflicting claims marked.
                let missing = shown(&driver, css("[data-testid=\"review-missing\"][data-path=\"legacy/run.sh\"]"), "the missing path").await?;
                let text = missing.text().await?;
                ensure!(text.contains("Remove the legacy scripts"), "the stale evidence does not name the commit: {text:?}");
                let claims = ui::texts(&driver, css("[data-kind=\"conflict\"] [data-testid=\"review-claim\"]")).await?;
                ensure!(claims.iter().any(|c| c == "pnpm") && claims.iter().any(|c| c == "npm"), "the conflict marks {claims:?}");

                resize(&driver, 720, 480).await?;
                shoot(&driver, "review-720x480").await?;

                // Merge the duplicate: the kept one's text in the editor (the other says nothing
                // it does not), replaced and saved with Ctrl+S.
                let dup = go_to(&driver, "duplicate").await?;
                letter(&driver, "m").await?;
                shown(&driver, css("[data-testid=\"review-merge-offered\"][data-ready=\"true\"]"), "the merge editor's text").await?;
                let body = testid(&driver, "review-merge-body").await?;
                let text = ui::value_of(&body).await?;
                ensure!(text.matches("Tests use real databases").count() == 1, "the editor holds {text:?}");
                shoot(&driver, "review-merge-720x480").await?;
                press_ctrl(&driver, "a").await?;
                driver.action_chain().send_keys("Tests use real databases and clean up their own rows. MERGED").perform().await?;
                press_ctrl(&driver, "s").await?;
                ui::gone(&driver, ui::tid("review-merge-dialog"), "the merge editor to close").await?;
                count_is(&driver, 2).await?;

                // Supersede the conflict: ↓ picks the second as the one that stays.
                let conflict = go_to(&driver, "conflict").await?;
                let scopes = {
                    let mut out = Vec::new();
                    for name in &conflict {
                        let side = driver.find(css(&format!("[data-kind=\"conflict\"] [data-testid=\"review-side\"][data-name=\"{name}\"]"))).await?;
                        out.push(side.attr("data-scope").await?.unwrap_or_default());
                    }
                    out
                };
                letter(&driver, "s").await?;
                testid(&driver, "review-supersede-dialog").await?;
                press(&driver, Key::Down).await?;
                press(&driver, Key::Enter).await?;
                ui::gone(&driver, ui::tid("review-supersede-dialog"), "the supersede dialog to close").await?;
                count_is(&driver, 1).await?;

                // Keep the stale one.
                go_to(&driver, "stale").await?;
                shoot(&driver, "review-stale-720x480").await?;
                letter(&driver, "k").await?;
                count_is(&driver, 0).await?;
                testid(&driver, "review-empty").await?;
                shoot(&driver, "review-empty-720x480").await?;
                *seen.lock().unwrap() = (dup, conflict.into_iter().zip(scopes).collect::<Vec<_>>());
                Ok(())
            },
        )
        .await?;

    let (dup, conflict) = outcome.lock().unwrap().clone();
    // Merge: the first stays with the merged text and names the other; the other is gone from
    // disk; both originals are in the archive.
    let (kept, gone) = (&dup[0], &dup[1]);
    let merged = read(user_file(kept)).await?;
    ensure!(
        merged.contains("MERGED"),
        "{kept} lacks the merged text:\n{merged}"
    );
    ensure!(
        merged.contains("merged_from") && merged.contains(gone.as_str()),
        "{kept} does not record merged_from {gone}:\n{merged}"
    );
    ensure!(
        !user_file(gone).exists(),
        "{gone} is still on disk after the merge"
    );
    ensure!(
        !sandbox.archive_of(None, gone)?.is_empty(),
        "{gone} is not in the archive"
    );
    ensure!(
        !sandbox.archive_of(None, kept)?.is_empty(),
        "{kept}'s original is not in the archive"
    );

    // Supersede: the first is superseded by the second (chosen with ↓), which is untouched.
    let ((retired, retired_scope), (stays, _)) = (&conflict[0], &conflict[1]);
    let retired_text = read(files(retired_scope, retired)).await?;
    ensure!(
        retired_text.contains(&format!("superseded_by: {stays}")),
        "{retired} is not superseded by {stays}:\n{retired_text}"
    );
    let project = (retired_scope == "project").then_some(&shop);
    ensure!(
        !sandbox.archive_of(project, retired)?.is_empty(),
        "{retired}'s version before the supersede is not in the archive"
    );
    for (scope, name, path) in &all_files {
        if name != retired && name != gone && name != kept {
            ensure!(
                !read(path.clone()).await?.contains("superseded_by"),
                "{scope} {name} changed"
            );
        }
    }

    // Keep: reviewed, archived before.
    let kept_stale = read(stale_file).await?;
    ensure!(
        kept_stale.contains("reviewed:"),
        "how-to-run is not marked reviewed:\n{kept_stale}"
    );
    ensure!(
        !sandbox.archive_of(Some(&shop), "how-to-run")?.is_empty(),
        "how-to-run's version before keep is not in the archive"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_forgets_with_undo_and_edits_in_the_memory_form_by_keyboard() -> TestResult {
    let sandbox = Sandbox::new()?;
    let shop = sandbox.add_project("shop")?;
    std::fs::write(shop.root.join("Makefile.toml"), "[tasks]\n")?;
    sandbox.git(&shop.root, &["add", "-A"])?;
    sandbox.git(&shop.root, &["commit", "-qm", "Start"])?;
    sandbox.git(&shop.root, &["rm", "-q", "Makefile.toml"])?;
    sandbox.git(&shop.root, &["commit", "-qm", "Drop cargo-make"])?;
    sandbox.save_project(
        &shop,
        "build-steps",
        "project",
        "Building",
        "Build with the tasks in Makefile.toml.\n",
    )?;
    let file = sandbox.project_memory_file(&shop, "build-steps");
    let original = std::fs::read_to_string(&file)?;
    let on_disk = file.clone();
    sandbox
        .run(
            "review_forgets_with_undo_and_edits_in_the_memory_form_by_keyboard",
            |driver| async move {
                ui::ready(&driver).await?;
                focus_on(&driver, "nav-project").await?;
                press(&driver, Key::Enter).await?;
                count_is(&driver, 1).await?;
                open(&driver).await?;
                go_to(&driver, "stale").await?;
                // Forget asks first (Cancel has focus, as in every destructive dialog).
                press(&driver, Key::Delete).await?;
                text_contains(&driver, "confirm-message", "archive").await?;
                press(&driver, Key::Tab).await?;
                press(&driver, Key::Enter).await?;
                eventually("the memory to leave the disk", || {
                    let gone = !on_disk.exists();
                    async move { Ok(gone.then_some(())) }
                })
                .await?;
                count_is(&driver, 0).await?;
                testid(&driver, "review-empty").await?;
                // Undo brings it back, and with it the finding.
                focus_on(&driver, "toast-action").await?;
                press(&driver, Key::Enter).await?;
                eventually("the memory to be back on disk", || {
                    let back = on_disk.exists();
                    async move { Ok(back.then_some(())) }
                })
                .await?;
                count_is(&driver, 1).await?;
                // Edit opens the memory's own form.
                focus_on(&driver, "review-finding").await?;
                letter(&driver, "e").await?;
                let body = testid(&driver, "form-body").await?;
                let text = ui::value_of(&body).await?;
                ensure!(text.contains("Makefile.toml"), "the form shows {text:?}");
                let name = ui::value_of(&testid(&driver, "form-name").await?).await?;
                ensure!(name == "build-steps", "the form edits {name:?}");
                Ok(())
            },
        )
        .await?;
    ensure!(
        !sandbox.archive_of(Some(&shop), "build-steps")?.is_empty(),
        "the forgotten memory is not in the archive"
    );
    let restored = std::fs::read_to_string(&file)?;
    ensure!(
        restored == original,
        "the restored file differs:\n{restored}\n--- was ---\n{original}"
    );
    Ok(())
}

/// Two memories that read as one statement but where one says it moved away from the other are
/// asked about — "duplicate or conflict?" — with the word that holds them apart marked, and
/// both Merge and Supersede offered by their keys, never shown as "the same thing".
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn review_asks_about_a_pair_that_reads_alike_but_moved_on() -> TestResult {
    let sandbox = Sandbox::new()?;
    save_pair_that_moved_on(&sandbox)?;
    sandbox
        .run(
            "review_asks_about_a_pair_that_reads_alike_but_moved_on",
            |driver| async move {
                open_with_one_finding(&driver).await?;
                let names = go_to(&driver, "same_subject").await?;
                ensure!(names.len() == 2, "the finding names {names:?}");
                let title =
                    ui::texts(&driver, css("[data-kind=\"same_subject\"] .review-title")).await?;
                ensure!(
                    title.iter().any(|t| t.contains("duplicate or conflict?")),
                    "the title is {title:?}"
                );
                let claims = ui::texts(
                    &driver,
                    css("[data-kind=\"same_subject\"] [data-testid=\"review-claim\"]"),
                )
                .await?;
                ensure!(
                    claims.iter().any(|c| c == "no longer"),
                    "the marked words are {claims:?}"
                );
                let duplicates = ui::texts(&driver, css("[data-kind=\"duplicate\"]")).await?;
                ensure!(
                    duplicates.is_empty(),
                    "also listed as a duplicate: {duplicates:?}"
                );
                shoot(&driver, "review-same-subject").await?;
                // Supersede by its key, then Esc: the question is answered either way.
                letter(&driver, "s").await?;
                testid(&driver, "review-supersede-dialog").await?;
                press(&driver, Key::Escape).await?;
                ui::gone(
                    &driver,
                    ui::tid("review-supersede-dialog"),
                    "the supersede dialog to close",
                )
                .await?;
                Ok(())
            },
        )
        .await
}
