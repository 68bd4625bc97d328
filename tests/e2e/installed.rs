//! Installed like a desktop app: `packaging/install-user.sh` puts both binaries in a bin folder
//! and a valid menu entry with icons in a data folder, and the app starts from that entry
//! (`gtk-launch`, as a menu would); Settings' "start at login" writes a valid XDG autostart
//! entry that starts the app tray-only (`--tray`: running, no window shown).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{target_dir, TestResult};
use crate::seed::Sandbox;
use crate::ui::{self, click, testid};

const ENTRY: &str = "dev.ambry.app.desktop";

fn repo() -> PathBuf {
    crate::harness::manifest_dir()
}

/// The processes whose executable is `exe` (a path unique to this test), by pid.
fn pids_of(exe: &Path) -> Vec<u32> {
    let Ok(exe) = exe.canonicalize() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| p == exe))
        .collect()
}

fn stop(pids: &[u32]) {
    for pid in pids {
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
    }
}

/// Waits for `ok` up to `limit`.
fn wait_for(limit: Duration, mut ok: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

fn validate(entry: &Path) -> TestResult {
    let out = Command::new("desktop-file-validate")
        .arg(entry)
        .output()
        .map_err(|e| format!("desktop-file-validate is missing ({e}); scripts/setup.sh installs desktop-file-utils"))?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    ensure!(
        out.status.success() && !said.contains("error"),
        "{} does not validate:\n{said}",
        entry.display()
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn the_installed_menu_entry_is_valid_and_starts_the_app() -> TestResult {
    let sandbox = Sandbox::new()?;
    let root = tempfile::Builder::new()
        .prefix("ambry-install-")
        .tempdir()?;
    let (bin, data) = (root.path().join("bin"), root.path().join("share"));
    let out = Command::new(repo().join("packaging/install-user.sh"))
        .arg(target_dir().join("debug"))
        .env("BIN_DIR", &bin)
        .env("DATA_DIR", &data)
        .output()?;
    ensure!(
        out.status.success(),
        "install-user.sh failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for b in ["ambry", "ambry-app"] {
        ensure!(
            bin.join(b).is_file(),
            "{b} is not installed in {}",
            bin.display()
        );
    }
    for size in ["32x32", "128x128", "256x256"] {
        let icon = data.join(format!("icons/hicolor/{size}/apps/ambry-app.png"));
        ensure!(icon.is_file(), "no {size} icon at {}", icon.display());
    }
    let entry = data.join("applications").join(ENTRY);
    validate(&entry)?;
    let text = std::fs::read_to_string(&entry)?;
    ensure!(
        text.contains(&format!("Exec={}\n", bin.join("ambry-app").display())),
        "the entry does not start the installed app:\n{text}"
    );
    ensure!(
        text.contains("Icon=ambry-app\n"),
        "the entry's icon:\n{text}"
    );

    // Started as a menu starts it: by the entry's id, found through XDG_DATA_DIRS.
    let launched = Command::new("gtk-launch")
        .arg(ENTRY.trim_end_matches(".desktop"))
        .env("XDG_DATA_DIRS", format!("{}:/usr/share", data.display()))
        .env("AMBRY_HOME", &sandbox.home)
        .env("HOME", &sandbox.user_home)
        .env("NO_AT_BRIDGE", "1")
        // Not piped: the app inherits them, and a pipe would stay open for as long as it runs.
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| {
            format!(
                "gtk-launch is missing ({e}); scripts/setup.sh --for test installs libgtk-3-bin"
            )
        })?;
    ensure!(launched.success(), "gtk-launch failed: {launched}");
    let app = bin.join("ambry-app");
    let started = wait_for(Duration::from_secs(20), || !pids_of(&app).is_empty());
    // The app answers agents on its home's socket once its window has painted.
    let serving = started
        && wait_for(Duration::from_secs(30), || {
            sandbox.home.join("compose.sock").exists()
        });
    let pids = pids_of(&app);
    stop(&pids);
    ensure!(started, "no process of {} after gtk-launch", app.display());
    ensure!(
        serving,
        "the app started from its entry never served compose on {}",
        sandbox.home.display()
    );
    ensure!(
        wait_for(Duration::from_secs(10), || pids_of(&app).is_empty()),
        "the app did not exit on SIGTERM"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs a display: run through scripts/e2e.sh"]
async fn start_at_login_writes_a_tray_only_autostart_entry() -> TestResult {
    let sandbox = Sandbox::new()?;
    let config_home = sandbox.user_home.join(".config-elsewhere");
    std::fs::create_dir_all(&config_home)?;
    let autostart = config_home.join("autostart").join(ENTRY);
    let entry = autostart.clone();
    sandbox
        .run_with_env(
            "start_at_login_writes_a_tray_only_autostart_entry",
            &[("XDG_CONFIG_HOME", &config_home)],
            |driver| async move {
                ui::ready(&driver).await?;
                click(&driver, "nav-settings").await?;
                let toggle = testid(&driver, "settings-autostart").await?;
                ensure!(
                    !toggle.is_selected().await?,
                    "start at login is on in a fresh home"
                );
                toggle.click().await?;
                ui::eventually("the autostart entry to be written", || {
                    let there = entry.is_file();
                    async move { Ok(there.then_some(())) }
                })
                .await?;
                ensure!(
                    testid(&driver, "settings-autostart")
                        .await?
                        .is_selected()
                        .await?,
                    "the toggle did not stay on"
                );
                Ok(())
            },
        )
        .await?;
    validate(&autostart)?;
    let text = std::fs::read_to_string(&autostart)?;
    let exec = text
        .lines()
        .find_map(|l| l.strip_prefix("Exec="))
        .ok_or("no Exec line")?
        .to_string();
    ensure!(
        exec.ends_with(" --tray"),
        "the autostart entry does not start tray-only: {exec}"
    );

    // What the entry starts: the app, running and serving, with no window on screen.
    let app = PathBuf::from(exec.trim_end_matches(" --tray").trim_matches('"'));
    let child = Command::new(&app)
        .arg("--tray")
        .env("AMBRY_HOME", &sandbox.home)
        .env("HOME", &sandbox.user_home)
        .env("NO_AT_BRIDGE", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let pid = child.id();
    let serving = wait_for(Duration::from_secs(30), || {
        sandbox.home.join("compose.sock").exists()
    });
    let visible = Command::new("xdotool")
        .args(["search", "--onlyvisible", "--pid", &pid.to_string()])
        .output()?;
    let windows = String::from_utf8_lossy(&visible.stdout).trim().to_string();
    stop(&[pid]);
    let mut child = child;
    let _ = child.wait();
    ensure!(
        serving,
        "the app started with --tray is not running (no compose socket)"
    );
    ensure!(
        windows.is_empty(),
        "the app started with --tray shows windows: {windows}"
    );
    Ok(())
}
