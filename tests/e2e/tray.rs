//! The tray icon: under a session bus with `trayer` as the tray host the icon docks, a right
//! click opens its menu (Open Ambry, Search memories…, Reindex, Quit), and choosing an item
//! reaches the app: "Search memories…" opens the overlay, "Reindex" runs the backend's reindex,
//! whose summary (only the backend's end-of-reindex event writes it) shows in the window.
//!
//! The icon is the app's own XEmbed window docked in trayer's panel (WM_NAME `ambry-app`,
//! icon-sized); the menu is the window that maps after a right click on it. With no window
//! manager nothing keeps windows apart, so trayer sits in the bottom-right corner, outside the
//! app's window: a click where the window overlaps the panel would land in the web view (and
//! open WebKit's context menu instead). Items are chosen with a click in the menu.
//! Every step that can fail says what it saw, so a broken tray explains itself.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::TestResult;
use crate::seed::Sandbox;
use crate::ui;
use thirtyfour::prelude::*;

/// A process this test started; stopped (SIGTERM, by its id) when dropped.
struct Background {
    child: Child,
    what: &'static str,
}

impl Background {
    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("{} did not stop on SIGTERM; killing it", self.what);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn xdotool(args: &[&str]) -> TestResult<String> {
    let out = Command::new("xdotool").args(args).output().map_err(|e| {
        format!("cannot run xdotool (scripts/setup.sh --for test installs it): {e}")
    })?;
    if !out.status.success() {
        return Err(format!(
            "xdotool {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A window's position and size (the position shows in failure messages).
#[derive(Debug, Clone, Copy)]
#[allow(dead_code)]
struct Geometry {
    x: i64,
    y: i64,
    width: i64,
    height: i64,
}

fn geometry(window: &str) -> TestResult<Geometry> {
    let shell = xdotool(&["getwindowgeometry", "--shell", window])?;
    let field = |key: &str| -> TestResult<i64> {
        shell
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .ok_or_else(|| format!("no {key} in `xdotool getwindowgeometry` output: {shell}"))?
            .trim()
            .parse()
            .map_err(|e| format!("bad {key} in {shell}: {e}").into())
    };
    Ok(Geometry {
        x: field("X")?,
        y: field("Y")?,
        width: field("WIDTH")?,
        height: field("HEIGHT")?,
    })
}

/// trayer's panel window (WM_NAME "panel", class "trayer").
fn trayer_panel() -> TestResult<Option<String>> {
    let Ok(names) = xdotool(&["search", "--name", "^panel$"]) else {
        return Ok(None);
    };
    let classes = xdotool(&["search", "--class", "trayer"]).unwrap_or_default();
    Ok(names
        .lines()
        .find(|w| classes.lines().any(|c| c == *w))
        .map(str::to_string))
}

fn start_trayer() -> TestResult<(Background, String)> {
    ensure!(
        std::env::var_os("DISPLAY").is_some(),
        "DISPLAY is not set: run the E2E tests through scripts/e2e.sh (Xvfb)"
    );
    ensure!(
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
        "no session bus (DBUS_SESSION_BUS_ADDRESS unset): without one the app has no tray; run through scripts/e2e.sh (dbus-run-session)"
    );
    let child = Command::new("trayer")
        .args([
            "--edge",
            "bottom",
            "--align",
            "right",
            "--widthtype",
            "request",
            "--height",
            "32",
        ])
        .args([
            "--SetDockType",
            "false",
            "--SetPartialStrut",
            "false",
            "--expand",
            "true",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!("cannot start trayer (scripts/setup.sh --for test installs it): {e}")
        })?;
    let mut trayer = Background {
        child,
        what: "trayer",
    };
    let deadline = Instant::now() + ui::PATIENCE;
    loop {
        if let Some(panel) = trayer_panel()? {
            return Ok((trayer, panel));
        }
        if let Some(status) = trayer.exited() {
            return Err(format!("trayer exited ({status}) before showing its panel; is another tray host running on this display?").into());
        }
        ensure!(
            Instant::now() < deadline,
            "trayer's panel window never appeared (xdotool search --name panel --class trayer)"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Ids of the windows mapped right now.
fn visible_windows() -> Vec<String> {
    xdotool(&["search", "--onlyvisible", "--name", ""])
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The icon's own window: the app's (WM_NAME `ambry-app`) XEmbed plug docked in the panel,
/// icon-sized, owned by the app this test started on `home` (an icon of another app would
/// take the clicks meant for this one). Waits until it is there.
fn tray_icon(panel: &str, home: &std::path::Path) -> TestResult<String> {
    let deadline = Instant::now() + ui::PATIENCE;
    loop {
        let ours = crate::harness::apps_on(home);
        let candidates =
            xdotool(&["search", "--onlyvisible", "--name", "^ambry-app$"]).unwrap_or_default();
        let mut others = Vec::new();
        for window in candidates.lines() {
            if let Ok(g) = geometry(window) {
                if (16..=64).contains(&g.width) && (16..=64).contains(&g.height) {
                    let pid = xdotool(&["getwindowpid", window])
                        .ok()
                        .and_then(|p| p.trim().parse::<u32>().ok());
                    match pid {
                        Some(pid) if ours.contains(&pid) => return Ok(window.to_string()),
                        other => others.push(format!("{window} (pid {other:?})")),
                    }
                }
            }
        }
        ensure!(
            Instant::now() < deadline,
            "no icon of this test's app (pids {ours:?}) docked in trayer's panel after {:?} (panel {}; other icon-sized \
             `ambry-app` windows: {others:?}): the app registered no tray icon. Without a session bus Tauri silently skips it",
            ui::PATIENCE,
            describe(panel),
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Opens the tray menu with a right click on the icon and returns the menu's window, checking it
/// lies outside the app's window (so it is the tray's menu, not a context menu of the page).
async fn open_menu(icon: &str, panel: &str) -> TestResult<String> {
    let before = visible_windows();
    // The menu opens on a right click (a left click activates the icon).
    xdotool(&["mousemove", "--sync", "--window", icon, "16", "15"])?;
    xdotool(&["click", "3"])?;
    let menu = ui::eventually(
        "the tray menu to open after right-clicking the icon",
        || {
            let new: Vec<String> = visible_windows()
                .into_iter()
                .filter(|w| !before.contains(w))
                .collect();
            let menu = new
                .into_iter()
                .find(|w| geometry(w).is_ok_and(|g| g.height > 40 && g.width > 40));
            async move { Ok(menu) }
        },
    )
    .await
    .map_err(|e| {
        format!(
            "{e}; right-clicked icon window {icon} ({}) in panel {}",
            describe(icon),
            describe(panel)
        )
    })?;
    let g = geometry(&menu)?;
    ensure!(
        g.height > 4 * 16,
        "the tray menu ({menu}, {g:?}) is too short for its four items"
    );
    let icon_at = geometry(icon)?;
    ensure!(
        g.x <= icon_at.x + icon_at.width && g.x + g.width >= icon_at.x - 8,
        "the window that opened ({menu}, {g:?}) is not beside the tray icon ({icon_at:?}): not the tray menu"
    );
    Ok(menu)
}

/// Opens the menu, chooses the `position`-th item and waits for `landed`; tries three times.
/// Under heavy load a choice can be lost before the popup is ready for it: a person sees the
/// menu before choosing, so a choice that was never delivered says nothing about the app. Each
/// retry closes the menu first, and every attempt's failure is reported.
async fn choose_until<T, F, Fut>(
    icon: &str,
    panel: &str,
    position: usize,
    landed: F,
) -> TestResult<T>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = TestResult<T>>,
{
    let mut failures = Vec::new();
    for attempt in 1..=3 {
        let menu = open_menu(icon, panel).await?;
        choose(&menu, position)?;
        match landed().await {
            Ok(value) => return Ok(value),
            Err(e) => failures.push(format!("attempt {attempt}: {e}")),
        }
        if visible_windows().contains(&menu) {
            xdotool(&["key", "Escape"])?;
            ui::eventually("the tray menu to close on Esc", || {
                let open = visible_windows().contains(&menu);
                async move { Ok((!open).then_some(())) }
            })
            .await?;
        }
    }
    Err(failures.join("; ").into())
}

/// Clicks the `position`-th item (1-based, one of those above the separator) of the open menu.
/// GTK lays the items out at one height between the menu's padding and the separator, so the
/// item's middle follows from the menu's height. Pointer events reach the menu as soon as it is
/// mapped; keys do only once GTK has grabbed the keyboard for it, which under load came late.
fn choose(menu: &str, position: usize) -> TestResult {
    const PADDING: i64 = 5;
    const SEPARATOR: i64 = 7;
    const ITEMS: i64 = 4;
    let g = geometry(menu)?;
    let item = (g.height - 2 * PADDING - SEPARATOR) / ITEMS;
    let y = g.y + PADDING + item * (position as i64 - 1) + item / 2;
    xdotool(&[
        "mousemove",
        "--sync",
        &(g.x + g.width / 2).to_string(),
        &y.to_string(),
    ])?;
    xdotool(&["click", "1"])?;
    Ok(())
}

const SEARCH_ITEM: usize = 2;
const REINDEX_ITEM: usize = 3;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display and a session bus: run through scripts/e2e.sh"]
async fn the_tray_menu_opens_search_and_runs_a_reindex() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "deploy-window",
        "project",
        "Deploys happen Tuesday mornings",
        "Never on Fridays.\n",
    )?;
    let turns = [
        ("user", "how do we rotate the signing keys?"),
        ("assistant", "Rotate them quarterly with the vault CLI."),
    ];
    sandbox.write_session("tray-session", "Signing keys", &sandbox.user_home, &turns)?;
    let (_trayer, panel) = start_trayer()?;
    let home = sandbox.home.clone();
    sandbox
        .run("the_tray_menu_opens_search_and_runs_a_reindex", move |driver| async move {
            ui::open_user_memories(&driver).await?;
            ui::rows_until(&driver, "the memory list", |rows| rows == ["deploy-window"]).await?;
            let icon = tray_icon(&panel, &home)?;

            choose_until(&icon, &panel, SEARCH_ITEM, || ui::testid(&driver, "search-input"))
                .await
                .map_err(|e| format!("choosing \"Search memories…\" in the tray menu did not open the overlay: {e}"))?;
            driver.find(ui::tid("search-input")).await?.send_keys(Key::Escape).await?;
            ui::gone(&driver, ui::tid("search-input"), "the search overlay to close on Esc").await?;

            let summary = choose_until(&icon, &panel, REINDEX_ITEM, || ui::reindex_result(&driver))
                .await
                .map_err(|e| format!("choosing \"Reindex\" in the tray menu: {e}"))?;
            ensure!(summary.starts_with("Search by meaning unavailable"), "reindex summary without the model: {summary:?}");
            // The app's watcher indexed the seeded session at launch; the reindex counts it.
            ensure!(summary.contains("Sessions: 1 searchable"), "the tray's reindex did not see the seeded session: {summary:?}");
            Ok(())
        })
        .await
}

fn describe(panel: &str) -> String {
    match geometry(panel) {
        Ok(g) => format!("{panel} at {g:?}"),
        Err(e) => format!("{panel} (geometry unknown: {e})"),
    }
}

/// Records, at every change of the reindex's progress, whether it runs and whether a progress
/// bar shows in the window (inside it, and the topmost thing at its middle).
async fn record_progress(driver: &WebDriver) -> TestResult {
    driver
        .execute(
            r#"const progress = document.querySelector('[data-testid="reindex-progress"]');
               window.__progress = [];
               const visible = (b) => {
                 const r = b.getBoundingClientRect();
                 if (!r.width || !r.height || r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return false;
                 const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                 return !!hit && (hit === b || b.contains(hit));
               };
               new MutationObserver(() => window.__progress.push({
                 running: !progress.hidden,
                 visible: [...document.querySelectorAll('[role="progressbar"]')].some(visible),
               })).observe(progress, { attributes: true });"#,
            Vec::<serde_json::Value>::new(),
        )
        .await?;
    Ok(())
}

#[derive(serde::Deserialize, Debug)]
struct Progress {
    running: bool,
    visible: bool,
}

/// The states recorded once a run began and ended.
async fn reindex_ran(driver: &WebDriver) -> TestResult<Vec<Progress>> {
    ui::eventually("the reindex to run and end", || async {
        let states: Vec<Progress> = driver
            .execute("return window.__progress;", Vec::<serde_json::Value>::new())
            .await?
            .convert()?;
        let ran = states.iter().any(|s| s.running) && states.last().is_some_and(|s| !s.running);
        Ok(ran.then_some(states))
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display and a session bus: run through scripts/e2e.sh"]
async fn below_900_px_the_trays_reindex_shows_its_progress_in_the_window() -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "deploy-window",
        "project",
        "Deploys happen Tuesday mornings",
        "Never on Fridays.\n",
    )?;
    let turns = [
        ("user", "how do we rotate the signing keys?"),
        ("assistant", "Rotate them quarterly with the vault CLI."),
    ];
    sandbox.write_session("tray-session", "Signing keys", &sandbox.user_home, &turns)?;
    let (_trayer, panel) = start_trayer()?;
    let home = sandbox.home.clone();
    sandbox
        .run(
            "below_900_px_the_trays_reindex_shows_its_progress_in_the_window",
            move |driver| async move {
                ui::open_user_memories(&driver).await?;
                crate::keys::resize(&driver, 720, 480).await?;
                ui::gone(
                    &driver,
                    ui::tid("sidebar"),
                    "the sidebar to fold away at 720 px",
                )
                .await?;
                record_progress(&driver).await?;
                let icon = tray_icon(&panel, &home)?;
                let states = choose_until(&icon, &panel, REINDEX_ITEM, || reindex_ran(&driver))
                    .await
                    .map_err(|e| format!("choosing \"Reindex\" in the tray menu: {e}"))?;
                let running: Vec<&Progress> = states.iter().filter(|s| s.running).collect();
                ensure!(
                    running.iter().all(|s| s.visible),
                    "while the reindex ran no progress showed in the window: {states:?}"
                );
                Ok(())
            },
        )
        .await
}
