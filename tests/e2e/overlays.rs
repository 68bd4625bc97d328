//! What lies over the window never moves it or shows through it, and what sits in it keeps its
//! shape, at 1280×800 and 720×480: a toast lies over the window (the sidebar, the list and the
//! detail pane keep their places and size; no blank band across them); a dialog hides the
//! memory list under it, scrollbar and all; the memory list's focus ring is unbroken at its group headers;
//! Codex's row in Settings keeps both its buttons, whole, inside the card.

use thirtyfour::prelude::*;

use crate::harness::{screenshot_base64, TestResult};
use crate::keys::{self, press, rect, resize, Rect};
use crate::review::shoot;
use crate::seed::Sandbox;
use crate::ui::{self, click, testid};

/// The rectangles of the window's parts (those displayed), in one frame.
async fn parts(driver: &WebDriver) -> TestResult<Vec<(String, [f64; 4])>> {
    let v = driver
        .execute(
            r#"return ['sidebar', 'main-view', 'memory-list', 'memory-detail', 'memories-title']
                 .map((id) => [id, document.querySelector(`[data-testid="${id}"]`)])
                 .filter(([, e]) => e && e.getClientRects().length)
                 .map(([id, e]) => { const r = e.getBoundingClientRect(); return [id, [r.left, r.top, r.width, r.height]]; });"#,
            vec![],
        )
        .await?;
    Ok(serde_json::from_value(v.json().clone())?)
}

/// What a person sees at `(x, y)` (CSS pixels) of the window: the topmost element's test id or
/// tag, or "" for the bare page.
async fn element_at(driver: &WebDriver, x: f64, y: f64) -> TestResult<String> {
    let v = driver
        .execute(
            r#"const e = document.elementFromPoint(arguments[0], arguments[1]);
               if (!e || e === document.body || e === document.documentElement || e.id === 'app') return '';
               const t = e.closest('[data-testid]');
               return t ? t.dataset.testid : e.tagName;"#,
            vec![serde_json::json!(x), serde_json::json!(y)],
        )
        .await?;
    Ok(v.convert()?)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_toast_lies_over_the_window_and_moves_nothing() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user("deploy-steps", "project", "How we ship", "make release\n")?;
    let missing_editor = sandbox.user_home.join("no-such-editor");
    sandbox
        .run_with_env(
            "a_toast_lies_over_the_window_and_moves_nothing",
            &[("VISUAL", &missing_editor)],
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                for (w, h) in [(1280, 800), (720, 480)] {
                    resize(&driver, w, h).await?;
                    ui::open_memory(&driver, "deploy-steps").await?;
                    let before = parts(&driver).await?;
                    // A failure to report: a toast shows.
                    click(&driver, "detail-open-editor").await?;
                    ui::shown(&driver, ui::tid("toast"), "the toast").await?;
                    let after = parts(&driver).await?;
                    ensure!(before == after, "at {w}×{h} a toast moved the window's parts:\nbefore {before:?}\nafter  {after:?}");
                    // No band of bare page across the bottom: the sidebar (when shown) and the
                    // view reach the window's bottom edge.
                    let y = f64::from(h) - 4.0;
                    let left = element_at(&driver, 20.0, y).await?;
                    let want = if w > 900 { "sidebar" } else { "memory-list" };
                    ensure!(left == want, "at {w}×{h} the bottom left shows {left:?}, not the {want}");
                    shoot(&driver, &format!("toast-over-window-{w}x{h}")).await?;
                    for dismiss in driver.find_all(ui::tid("toast-dismiss")).await? {
                        if dismiss.is_displayed().await? {
                            dismiss.click().await?;
                        }
                    }
                    ui::gone(&driver, ui::css("[data-testid=\"toast\"]:not(.leaving)"), "the toasts to go").await?;
                }
                Ok(())
            },
        )
        .await
}

/// The pixels of the window inside `r` (CSS pixels), as RGB, read from a screenshot: a row-major
/// `(width, height, pixels)` at the screenshot's scale.
async fn pixels(driver: &WebDriver, r: &Rect) -> TestResult<(usize, usize, Vec<[u8; 3]>)> {
    let png = screenshot_base64(driver).await?;
    let v = driver
        .execute_async(
            r#"const [png, left, top, width, height, done] = arguments;
               const img = new Image();
               img.onload = () => {
                 const scale = img.width / innerWidth;
                 const c = document.createElement('canvas');
                 c.width = img.width; c.height = img.height;
                 const g = c.getContext('2d');
                 g.drawImage(img, 0, 0);
                 const [x, y, w, h] = [left, top, width, height].map((n) => Math.round(n * scale));
                 const d = g.getImageData(x, y, w, h).data;
                 const out = [];
                 for (let i = 0; i < d.length; i += 4) out.push([d[i], d[i + 1], d[i + 2]]);
                 done([w, h, out]);
               };
               img.onerror = () => done(null);
               img.src = 'data:image/png;base64,' + png;"#,
            vec![
                serde_json::json!(png),
                serde_json::json!(r.left),
                serde_json::json!(r.top),
                serde_json::json!(r.width),
                serde_json::json!(r.height),
            ],
        )
        .await?;
    let read: Option<(usize, usize, Vec<[u8; 3]>)> = serde_json::from_value(v.json().clone())?;
    read.ok_or_else(|| "the screenshot could not be read back".into())
}

/// The focus ring's colour (styles.css: #8b8bf0), in both themes.
const RING: [u8; 3] = [0x8b, 0x8b, 0xf0];

fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 24)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_memory_lists_focus_ring_is_unbroken_at_its_group_headers() -> TestResult {
    let sandbox = Sandbox::new()?;
    for (kind, names) in [
        ("feedback", ["code-review", "commit-style", "test-style"]),
        ("project", ["deploy-steps", "release-train", "staging-db"]),
        (
            "reference",
            ["grafana-board", "runbook-links", "oncall-rota"],
        ),
    ] {
        for name in names {
            sandbox.save_user(name, kind, &format!("About {name}"), "Text.\n")?;
        }
    }
    sandbox
        .run(
            "the_memory_lists_focus_ring_is_unbroken_at_its_group_headers",
            |driver| async move {
                ui::ready(&driver).await?;
                for (w, h) in [(1280, 800), (720, 480)] {
                    resize(&driver, w, h).await?;
                    // Into the list by keyboard, as a person does: the sidebar's entry, Enter.
                    if w <= 900 {
                        keys::focus_on(&driver, "sidebar-toggle").await?;
                        press(&driver, Key::Enter).await?;
                    }
                    keys::focus_on(&driver, "nav-user").await?;
                    press(&driver, Key::Enter).await?;
                    ui::eventually("focus in the memory list", || async {
                        Ok((keys::focused(&driver).await?.testid == "memory-list").then_some(()))
                    })
                    .await?;
                    let list = rect(&driver, "[data-testid=\"memory-list\"]").await?;
                    let headers = driver.find_all(ui::tid("memory-group")).await?.len();
                    ensure!(
                        headers >= 2,
                        "only {headers} group headers in view at {w}×{h}"
                    );
                    shoot(&driver, &format!("memory-list-focus-ring-{w}x{h}")).await?;
                    // The ring's left edge, one pixel in, from top to bottom; its top and bottom
                    // edges across the list (the right edge is where the scrollbar may show).
                    let (pw, ph, px) = pixels(&driver, &list).await?;
                    // A ring on a fractional pixel blends into its neighbour: either of the
                    // ring's two pixels in its colour is the ring there.
                    let ring = |x: [usize; 2], y: [usize; 2]| {
                        x.iter()
                            .any(|&x| y.iter().any(|&y| near(px[y * pw + x], RING)))
                    };
                    let mut gaps = Vec::new();
                    for y in 2..ph.saturating_sub(2) {
                        if !ring([0, 1], [y, y]) {
                            gaps.push(format!("left edge at y={y}: {:?}", px[y * pw + 1]));
                        }
                    }
                    for x in 2..pw.saturating_sub(16) {
                        if !ring([x, x], [0, 1]) {
                            gaps.push(format!("top edge at x={x}: {:?}", px[pw + x]));
                        }
                        if !ring([x, x], [ph - 1, ph - 2]) {
                            gaps.push(format!("bottom edge at x={x}: {:?}", px[(ph - 2) * pw + x]));
                        }
                    }
                    ensure!(
                        gaps.is_empty(),
                        "at {w}×{h} the list's focus ring ({list:?}) has {} gaps, first {:?}",
                        gaps.len(),
                        &gaps[..gaps.len().min(5)]
                    );
                }
                Ok(())
            },
        )
        .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn codexs_row_keeps_both_its_buttons_whole_inside_the_agents_card() -> TestResult {
    let sandbox = Sandbox::new()?;
    let codex = sandbox.user_home.join("codex-home");
    std::fs::create_dir_all(&codex)?;
    // Connected from the terminal: its hooks wait for the person's trust, so the row has both
    // Trust in Codex… and Disconnect.
    let out = sandbox
        .ambry(&sandbox.user_home)?
        .env("CODEX_HOME", &codex)
        .args(["connect", "codex"])
        .output()?;
    ensure!(
        out.status.success(),
        "ambry connect codex failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    sandbox
        .run_with_env(
            "codexs_row_keeps_both_its_buttons_whole_inside_the_agents_card",
            &[("CODEX_HOME", &codex)],
            |driver| async move {
                ui::ready(&driver).await?;
                for (w, h) in [(1280, 800), (900, 600), (720, 480)] {
                    resize(&driver, w, h).await?;
                    if w <= 900 {
                        keys::focus_on(&driver, "sidebar-toggle").await?;
                        press(&driver, Key::Enter).await?;
                    }
                    keys::focus_on(&driver, "nav-settings").await?;
                    press(&driver, Key::Enter).await?;
                    testid(&driver, "agents-card").await?;
                    let row = "[data-testid=\"agent-row\"][data-agent=\"codex\"]";
                    ui::shown(&driver, ui::css(&format!("{row} [data-testid=\"agent-trust-button\"]")), "Codex's Trust button").await?;
                    let card = rect(&driver, "[data-testid=\"agents-card\"]").await?;
                    let trust = rect(&driver, &format!("{row} [data-testid=\"agent-trust-button\"]")).await?;
                    let toggle = rect(&driver, &format!("{row} [data-testid=\"agent-toggle\"]")).await?;
                    for (name, b) in [("Trust in Codex…", &trust), ("Disconnect", &toggle)] {
                        ensure!(
                            b.left >= card.left && b.right <= card.right && b.top >= card.top && b.bottom <= card.bottom,
                            "at {w}×{h} {name} ({b:?}) leaves the card ({card:?})"
                        );
                        ensure!(b.width >= 60.0, "at {w}×{h} {name} is {} px wide", b.width);
                    }
                    ensure!(!trust.overlaps(&toggle), "at {w}×{h} the buttons overlap: {trust:?} {toggle:?}");
                    // Each label fits its button (nothing spills past its edge).
                    let spill: f64 = driver
                        .execute(
                            "return Math.max(...[...document.querySelectorAll(arguments[0])].map((b) => b.scrollWidth - b.clientWidth));",
                            vec![serde_json::json!(format!("{row} button"))],
                        )
                        .await?
                        .convert()?;
                    ensure!(spill <= 1.0, "at {w}×{h} a label spills {spill} px past its button");
                    driver
                        .execute("document.querySelector(arguments[0]).scrollIntoView({ block: 'center' });", vec![serde_json::json!(row)])
                        .await?;
                    shoot(&driver, &format!("settings-codex-row-{w}x{h}")).await?;
                }
                Ok(())
            },
        )
        .await
}

/// Pixels of `a` and `b` that differ by more than a shade.
fn differing(a: &[[u8; 3]], b: &[[u8; 3]]) -> usize {
    a.iter()
        .zip(b)
        .filter(|(x, y)| !near_exact(**x, **y))
        .count()
        + a.len().abs_diff(b.len())
}

fn near_exact(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 8)
}

/// Sixty user memories: the memory list scrolls at any window size.
fn enough_notes_to_scroll(sandbox: &Sandbox) -> TestResult {
    for i in 0..60 {
        sandbox.save_user(
            &format!("note-{i:02}"),
            "project",
            &format!("Note number {i}"),
            "Text.\n",
        )?;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn a_dialog_hides_the_list_under_it_scrollbar_and_all() -> TestResult {
    let sandbox = Sandbox::new()?;
    enough_notes_to_scroll(&sandbox)?;
    sandbox
        .run(
            "a_dialog_hides_the_list_under_it_scrollbar_and_all",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                for (w, h) in [(1280, 800), (720, 480)] {
                    resize(&driver, w, h).await?;
                    ui::open_memory(&driver, "note-03").await?;
                    // A dialog over the list: the delete's question.
                    click(&driver, "detail-delete").await?;
                    let modal = rect(&driver, "[data-testid=\"confirm-dialog\"]").await?;
                    let list = rect(&driver, "[data-testid=\"memory-list\"]").await?;
                    ensure!(
                        list.right > modal.left + 8.0 && list.right < modal.right - 8.0,
                        "at {w}×{h} the list's right edge ({list:?}) is not under the dialog ({modal:?})"
                    );
                    let inside = Rect {
                        left: modal.left + 4.0,
                        top: modal.top + 4.0,
                        right: modal.right - 4.0,
                        bottom: modal.bottom - 4.0,
                        width: modal.width - 8.0,
                        height: modal.height - 8.0,
                        ..modal
                    };
                    // The list under the dialog moves (as when a memory changes on disk): its
                    // scrollbar shows.
                    driver
                        .execute("const l = document.querySelector('[data-testid=\"memory-list\"]'); l.scrollTop += 40;", vec![])
                        .await?;
                    let (_, _, seen) = pixels(&driver, &inside).await?;
                    shoot(&driver, &format!("dialog-over-memory-list-{w}x{h}")).await?;
                    // The same dialog with nothing of the window under it.
                    driver.execute("document.getElementById('app').style.visibility = 'hidden';", vec![]).await?;
                    let (_, _, alone) = pixels(&driver, &inside).await?;
                    driver.execute("document.getElementById('app').style.visibility = '';", vec![]).await?;
                    let off = differing(&seen, &alone);
                    ensure!(off == 0, "at {w}×{h} {off} pixels of the dialog ({modal:?}) show something of the window under it");
                    press(&driver, Key::Escape).await?;
                    ui::gone(&driver, ui::tid("confirm-dialog"), "the dialog to close").await?;
                }
                Ok(())
            },
        )
        .await
}

/// The search palette lies over the memory list as a dialog does: the list's scrollbar never
/// shows through it, and the palette's own results still scroll.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_search_palette_hides_the_list_scrollbar_under_it() -> TestResult {
    let sandbox = Sandbox::new()?;
    enough_notes_to_scroll(&sandbox)?;
    sandbox
        .run(
            "the_search_palette_hides_the_list_scrollbar_under_it",
            |driver| async move {
                ui::open_user_memories(&driver).await?;
                resize(&driver, 720, 480).await?;
                // The pointer off the palette: a row under it would take the selection when
                // the window under the palette is hidden for the comparison.
                crate::tray::xdotool(&["mousemove", "715", "475"])?;
                keys::press_ctrl(&driver, "k").await?;
                driver.action_chain().send_keys("note").perform().await?;
                ui::shown(&driver, ui::tid("search-result"), "results").await?;
                let panel = rect(&driver, ".search-panel").await?;
                let list = rect(&driver, "[data-testid=\"memory-list\"]").await?;
                ensure!(
                    list.right > panel.left + 8.0 && list.right < panel.right - 8.0,
                    "the list's right edge ({list:?}) is not under the palette ({panel:?})"
                );
                // Where the list's scrollbar would lie: a strip along its right edge, inside the
                // palette (the palette's own results have a scrollbar too, at its right edge,
                // which fades in and out on its own).
                let inside = Rect {
                    left: list.right - 14.0,
                    top: panel.top + 4.0,
                    right: list.right + 2.0,
                    bottom: panel.bottom - 4.0,
                    width: 16.0,
                    height: panel.height - 8.0,
                    ..panel
                };
                // The list under the palette moves: its scrollbar would show.
                driver
                    .execute("const l = document.querySelector('[data-testid=\"memory-list\"]'); l.scrollTop += 40;", vec![])
                    .await?;
                let (_, _, seen) = pixels(&driver, &inside).await?;
                shoot(&driver, "palette-over-memory-list-720x480").await?;
                // The same palette with nothing of the window under it.
                let hide = "for (const e of document.querySelectorAll('#app > *')) if (!e.matches('.search-overlay')) e.style.visibility = arguments[0];";
                driver.execute(hide, vec![serde_json::json!("hidden")]).await?;
                let (_, _, alone) = pixels(&driver, &inside).await?;
                driver.execute(hide, vec![serde_json::json!("")]).await?;
                let off = differing(&seen, &alone);
                ensure!(off == 0, "{off} pixels of the palette ({panel:?}) show something of the window under it");
                let results_scroll = driver
                    .execute("const r = document.querySelector('[data-testid=\"search-result\"]').closest('[data-under-modal]'); return r === null;", vec![])
                    .await?;
                ensure!(results_scroll.json() == &serde_json::json!(true), "the palette's own results must keep scrolling");
                Ok(())
            },
        )
        .await
}
