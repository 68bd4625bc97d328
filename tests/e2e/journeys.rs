//! The keyboard-only journeys a person makes every day, in the smallest window (720×480) and a
//! common one (1280×800), each in the light and the dark theme: (a) search → open → edit → save;
//! (b) Ctrl+K → a past session → save a passage of it as a memory; (c) a setting changed → its
//! effect seen at once, without a restart. One body runs over the four (size, theme)
//! combinations, on a fresh home each, and leaves a screenshot of every step to look at.

use std::path::Path;

use thirtyfour::prelude::*;

use crate::harness::{capture, TestResult};
use crate::keys::{self, focused, press, press_ctrl, resize};
use crate::seed::Sandbox;
use crate::ui::{self, testid, text_contains};

const COMBOS: [(u32, u32, bool); 4] = [
    (720, 480, false),
    (720, 480, true),
    (1280, 800, false),
    (1280, 800, true),
];

/// Ctrl+K, the query typed over the last one, and ↓ until `key` is highlighted.
async fn palette_to(driver: &WebDriver, query: &str, key: &str) -> TestResult {
    press_ctrl(driver, "k").await?;
    let input = testid(driver, "search-input").await?;
    ensure!(
        focused(driver).await?.testid == "search-input",
        "Ctrl+K left focus on {:?}",
        focused(driver).await?
    );
    ui::fill(&input, query).await?;
    ui::eventually(&format!("{key} in the palette for {query:?}"), || async {
        Ok((!driver
            .find_all(ui::css(&format!("[data-testid=\"search-results\"] [role=\"option\"][data-key=\"{key}\"], [data-testid=\"search-results\"] [role=\"option\"][data-name=\"{key}\"]")))
            .await?
            .is_empty())
        .then_some(()))
    })
    .await?;
    for _ in 0..30 {
        if ui::palette_active(driver).await?.1 == key {
            return Ok(());
        }
        press(driver, Key::Down).await?;
    }
    Err(format!(
        "↓ never reached {key}: {:?}",
        ui::palette_active(driver).await?
    )
    .into())
}

/// Tab until the element with `id` has focus.
async fn tab_to(driver: &WebDriver, id: &str) -> TestResult {
    for _ in 0..30 {
        if focused(driver).await?.testid == id {
            return Ok(());
        }
        press(driver, Key::Tab).await?;
    }
    Err(format!(
        "Tab never reached {id}; focus is on {:?}",
        focused(driver).await?
    )
    .into())
}

/// Nothing the person needs is cut off or lies over something else: every displayed control
/// is inside the window (or inside the box it scrolls in) and no two controls overlap (focus
/// rings aside); a notification lies over the window but never over the control that has focus.
async fn layout_holds(driver: &WebDriver, when: &str) -> TestResult {
    let v = driver
        .execute(
            r#"const shown = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden'
                   && !e.closest('[hidden]') && !e.closest('.sidebar:not(.open)') ;
               const all = [...document.querySelectorAll('button, input, select, textarea, [data-testid="toast"]')].filter(shown);
               const top = document.querySelector('.modal-backdrop, .search-overlay:not([hidden])');
               const live = top ? all.filter((e) => top.contains(e) || e.closest('.toasts')) : all;
               const problems = [];
               const name = (e) => e.dataset.testid || e.getAttribute('aria-label') || (e.textContent || '').trim().slice(0, 24) || e.tagName;
               const boxes = live.map((e) => [e, e.getBoundingClientRect()]).filter(([, r]) => r.width > 0 && r.height > 0);
               // Controls that scroll inside a pane are judged where their scroll boxes show them:
               // the part of the box each scrolling ancestor leaves visible.
               const shownPart = (e, r) => { let { top, bottom, left, right } = r;
                   for (let p = e.parentElement; p; p = p.parentElement) {
                   const s = getComputedStyle(p); if (/(auto|scroll|hidden)/.test(s.overflowY + s.overflowX)) {
                     const b = p.getBoundingClientRect();
                     top = Math.max(top, b.top); bottom = Math.min(bottom, b.bottom); left = Math.max(left, b.left); right = Math.min(right, b.right); } }
                   return { top, bottom, left, right }; };
               const visible = boxes.map(([e, r]) => [e, r, shownPart(e, r)]).filter(([, , s]) => s.bottom > s.top && s.right > s.left);
               for (const [e, , r] of visible) {
                 if (r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1) problems.push(`${name(e)} leaves the window`);
               }
               const toast = (e) => !!e.closest('.toasts');
               const focused = document.activeElement;
               for (let i = 0; i < visible.length; i++) for (let j = i + 1; j < visible.length; j++) {
                 const [a, , ra] = visible[i], [b, , rb] = visible[j];
                 if (a.contains(b) || b.contains(a)) continue;
                 // A notification lies over the window: only the focused control must stay clear.
                 if (toast(a) !== toast(b) && ![a, b].some((e) => e === focused || e.contains(focused))) continue;
                 const dx = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
                 const dy = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
                 if (dx > 2 && dy > 2) problems.push(`${name(a)} overlaps ${name(b)}`);
               }
               return problems;"#,
            vec![],
        )
        .await?;
    let problems: Vec<String> = serde_json::from_value(v.json().clone())?;
    ensure!(problems.is_empty(), "{when}: {}", problems.join("; "));
    Ok(())
}

fn seeded() -> TestResult<Sandbox> {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "release-steps",
        "project",
        "How we ship releases",
        "Run the full test suite, then make release.\n",
    )?;
    let cwd = sandbox.user_home.clone();
    sandbox.write_session(
        "deploy-talk",
        "Moving the nightly deploys to the green pool",
        &cwd,
        &[
            ("user", "Where do the nightly deploys go now?"),
            (
                "assistant",
                "The nightly deploys go through the green pool; the blue pool is drained.",
            ),
        ],
    )?;
    sandbox.run_ambry(&cwd, &["sessions", "index"])?;
    Ok(sandbox)
}

async fn the_three_journeys(
    driver: WebDriver,
    w: u32,
    h: u32,
    dark: bool,
    label: String,
) -> TestResult {
    ui::ready(&driver).await?;
    resize(&driver, w, h).await?;
    let is_dark: bool = driver
        .execute(
            "return matchMedia('(prefers-color-scheme: dark)').matches;",
            vec![],
        )
        .await?
        .convert()?;
    ensure!(
        is_dark == dark,
        "the window's theme is dark={is_dark}, wanted dark={dark}"
    );

    // (a) search → open → edit → save.
    palette_to(&driver, "ship releases", "release-steps").await?;
    capture(&driver, &format!("journey-a1-search-{label}")).await?;
    driver
        .action_chain()
        .key_down(Key::Control)
        .send_keys(Key::Enter)
        .key_up(Key::Control)
        .perform()
        .await?;
    ui::text_contains(&driver, "detail-name", "release-steps").await?;
    ensure!(
        focused(&driver).await?.testid == "memory-list",
        "Ctrl+Enter left focus on {:?}",
        focused(&driver).await?
    );
    press(&driver, Key::Enter).await?;
    ensure!(
        focused(&driver).await?.testid == "detail-edit",
        "Enter in the list went to {:?}",
        focused(&driver).await?
    );
    press(&driver, Key::Enter).await?;
    ui::eventually("the body to have focus", || async {
        Ok((focused(&driver).await?.testid == "form-body").then_some(()))
    })
    .await?;
    driver
        .action_chain()
        .key_down(Key::Control)
        .send_keys(Key::End)
        .key_up(Key::Control)
        .send_keys("Tag it first.")
        .perform()
        .await?;
    layout_holds(&driver, &format!("the edit form at {label}")).await?;
    capture(&driver, &format!("journey-a2-edit-{label}")).await?;
    press_ctrl(&driver, "s").await?;
    text_contains(&driver, "detail-body", "Tag it first.").await?;
    ui::eventually("focus on Edit after the save", || async {
        Ok((focused(&driver).await?.testid == "detail-edit").then_some(()))
    })
    .await?;
    layout_holds(&driver, &format!("the saved memory at {label}")).await?;
    capture(&driver, &format!("journey-a3-saved-{label}")).await?;

    // (b) Ctrl+K → a session → save a passage as a memory.
    palette_to(&driver, "green pool drained", "deploy-talk").await?;
    press(&driver, Key::Enter).await?;
    text_contains(&driver, "transcript-title", "green pool").await?;
    tab_to(&driver, "transcript-save").await?;
    capture(&driver, &format!("journey-b1-transcript-{label}")).await?;
    press(&driver, Key::Enter).await?;
    ui::shown(&driver, ui::tid("passage-dialog"), "the passage dialog").await?;
    let body = ui::value_of(&testid(&driver, "passage-body").await?).await?;
    if body.trim().is_empty() {
        ui::fill(
            &testid(&driver, "passage-body").await?,
            "Nightly deploys go through the green pool.",
        )
        .await?;
    }
    let focus = focused(&driver).await?;
    ensure!(
        focus.testid == "passage-description" || focus.testid == "passage-name",
        "the dialog opened with focus on {focus:?}"
    );
    keys::focus_on(&driver, "passage-name").await?;
    driver
        .action_chain()
        .key_down(Key::Control)
        .send_keys("a")
        .key_up(Key::Control)
        .send_keys("green-pool-deploys")
        .perform()
        .await?;
    press(&driver, Key::Tab).await?;
    press(&driver, Key::Tab).await?;
    ensure!(
        focused(&driver).await?.testid == "passage-description",
        "Tab from the name went to {:?}",
        focused(&driver).await?
    );
    driver
        .action_chain()
        .send_keys("Where nightly deploys go")
        .perform()
        .await?;
    layout_holds(&driver, &format!("the passage dialog at {label}")).await?;
    capture(&driver, &format!("journey-b2-passage-{label}")).await?;
    press_ctrl(&driver, "s").await?;
    ui::gone(
        &driver,
        ui::tid("passage-dialog"),
        "the dialog to close after Ctrl+S",
    )
    .await?;
    text_contains(&driver, "toast", "Saved green-pool-deploys").await?;

    // (c) a setting changed → its effect at once.
    palette_to(&driver, "> settings", "settings").await?;
    press(&driver, Key::Enter).await?;
    testid(&driver, "settings-config").await?;
    driver
        .execute(
            "document.querySelector('[data-testid=\"setting\"][data-key=\"compose.turn_bytes\"] [data-testid=\"setting-input\"]').focus();",
            vec![],
        )
        .await?;
    driver
        .action_chain()
        .key_down(Key::Control)
        .send_keys("a")
        .key_up(Key::Control)
        .send_keys("2500")
        .send_keys(Key::Enter)
        .perform()
        .await?;
    ui::shown(
        &driver,
        ui::css("[data-testid=\"setting\"][data-key=\"compose.turn_bytes\"][data-saved=\"true\"]"),
        "turn_bytes to be saved",
    )
    .await?;
    layout_holds(&driver, &format!("Settings at {label}")).await?;
    capture(&driver, &format!("journey-c1-setting-{label}")).await?;
    palette_to(&driver, "> compose", "compose").await?;
    press(&driver, Key::Enter).await?;
    ui::eventually("the prompt box to have focus", || async {
        Ok((focused(&driver).await?.testid == "compose-prompt").then_some(()))
    })
    .await?;
    driver
        .action_chain()
        .send_keys("how do we ship releases")
        .perform()
        .await?;
    text_contains(&driver, "compose-gate", "turn 2,500 B").await?;
    layout_holds(&driver, &format!("the compose preview at {label}")).await?;
    capture(&driver, &format!("journey-c2-effect-{label}")).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn keyboard_journeys_hold_at_both_sizes_in_light_and_dark() -> TestResult {
    for (w, h, dark) in COMBOS {
        let label = format!("{w}x{h}-{}", if dark { "dark" } else { "light" });
        let sandbox = seeded()?;
        let theme = Path::new("Adwaita:dark");
        let env: Vec<(&str, &Path)> = if dark {
            vec![("GTK_THEME", theme)]
        } else {
            vec![]
        };
        let memory = sandbox.user_memory_file("release-steps");
        let passage = sandbox.user_memory_file("green-pool-deploys");
        let (home, l) = (sandbox.home.clone(), label.clone());
        sandbox
            .run_with_env(&format!("keyboard_journeys_{label}"), &env, move |driver| {
                the_three_journeys(driver, w, h, dark, l)
            })
            .await
            .map_err(|e| format!("at {label}: {e}"))?;
        let saved = std::fs::read_to_string(&memory)?;
        ensure!(
            saved.contains("Tag it first."),
            "at {label} the edit is not on disk:\n{saved}"
        );
        let kept = std::fs::read_to_string(&passage)
            .map_err(|e| format!("at {label} the passage was not saved: {e}"))?;
        ensure!(
            kept.contains("source:") && kept.contains("deploy-talk"),
            "at {label} the passage's source:\n{kept}"
        );
        let config = std::fs::read_to_string(home.join("config.toml"))?;
        ensure!(
            config.contains("turn_bytes = 2500"),
            "at {label} config.toml:\n{config}"
        );
    }
    Ok(())
}
