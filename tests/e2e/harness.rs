//! Launching the real app under tauri-driver and talking to it through WebDriver.
//!
//! Each `App` gets its own tauri-driver on free ports and its own AMBRY_HOME, so tests are
//! independent. `run` always quits the session (a session left open makes teardown hang for
//! about two minutes), even when the scenario fails or panics, and on failure leaves a
//! screenshot and the page source in `<target>/e2e-screenshots/`.
//! Deliberately does not: seed homes (see `seed`) or know any view (see `ui`).

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use thirtyfour::error::WebDriverErrorInner;
use thirtyfour::prelude::*;
use thirtyfour::Capabilities;

pub type TestResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Fails the current scenario with a message, without panicking (the session must still quit).
macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        let holds: bool = $cond;
        if !holds {
            return Err(format!($($msg)+).into());
        }
    };
}

pub struct App {
    pub driver: WebDriver,
    driver_process: Child,
    home: PathBuf,
}

/// The app processes started on `home` (their AMBRY_HOME), by pid.
pub fn apps_on(home: &Path) -> Vec<u32> {
    use std::os::unix::ffi::OsStrExt;
    let mut wanted = b"AMBRY_HOME=".to_vec();
    wanted.extend_from_slice(home.as_os_str().as_bytes());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim() == "ambry-app")
                && std::fs::read(format!("/proc/{pid}/environ"))
                    .is_ok_and(|env| env.split(|b| *b == 0).any(|kv| kv == wanted.as_slice()))
        })
        .collect()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn tauri_driver_binary() -> PathBuf {
    let from_cargo_home =
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin/tauri-driver"));
    match from_cargo_home {
        Some(p) if p.exists() => p,
        _ => PathBuf::from("tauri-driver"),
    }
}

/// The app binary cargo built for this test run.
pub fn app_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ambry-app"))
}

/// The cargo target directory of this build (`<target>/debug/ambry-app` → `<target>`).
pub fn target_dir() -> PathBuf {
    let bin = app_binary();
    bin.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("target"))
}

fn wait_for_port(port: u16, deadline: Instant) -> TestResult {
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!(
        "nothing listens on port {port}; is tauri-driver installed and WebKitWebDriver present?"
    )
    .into())
}

impl App {
    /// Starts the app binary on `home` (used as AMBRY_HOME), with extra environment variables.
    ///
    /// tauri-driver now and then drops the connection of the very first request (the new
    /// session) while its WebKitWebDriver child starts the app; that is the harness failing,
    /// not the app, so the launch is tried again on fresh ports, at most three times, each
    /// retry said on stderr. Any other failure is returned at once.
    pub async fn launch(home: &Path, extra_env: &[(&str, &Path)]) -> TestResult<App> {
        let mut attempt = 1;
        loop {
            match Self::launch_once(home, extra_env).await {
                Err(LaunchError::Transport(e)) if attempt < 3 => {
                    eprintln!(
                        "tauri-driver dropped the new-session request ({e}); launching again"
                    );
                    attempt += 1;
                }
                Err(e) => return Err(e.to_string().into()),
                Ok(app) => return Ok(app),
            }
        }
    }

    async fn launch_once(home: &Path, extra_env: &[(&str, &Path)]) -> Result<App, LaunchError> {
        let port = free_port();
        let native_port = free_port();
        let mut cmd = Command::new(tauri_driver_binary());
        cmd.args([
            "--port",
            &port.to_string(),
            "--native-port",
            &native_port.to_string(),
        ])
        .env("AMBRY_HOME", home)
        .env("NO_AT_BRIDGE", "1")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("AMBRY_MODELS_DIR")
        // The machine's editor must never start from a test; a test that wants one sets it.
        .env_remove("VISUAL")
        .env_remove("EDITOR")
        .env_remove("TERMINAL")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let mut driver_process = cmd
            .spawn()
            .map_err(|e| LaunchError::Other(format!("cannot start tauri-driver: {e}")))?;
        // tauri-driver listens before its WebKitWebDriver child does: wait for both.
        let deadline = Instant::now() + Duration::from_secs(20);
        if let Err(e) =
            wait_for_port(port, deadline).and_then(|_| wait_for_port(native_port, deadline))
        {
            stop(&mut driver_process);
            return Err(LaunchError::Other(e.to_string()));
        }
        let mut caps = Capabilities::new();
        let options = serde_json::json!({ "application": app_binary() });
        caps.set("browserName", "wry")
            .and_then(|_| caps.set("tauri:options", options))
            .map_err(|e| LaunchError::Other(e.to_string()))?;
        match WebDriver::new(format!("http://127.0.0.1:{port}"), caps).await {
            Ok(driver) => Ok(App {
                driver,
                driver_process,
                home: home.to_path_buf(),
            }),
            Err(e) => {
                stop(&mut driver_process);
                // An app the dropped session had started would answer the next launch's
                // single-instance check on this home instead of a new one.
                kill_apps_on(home);
                let message = format!("cannot open a WebDriver session: {e}");
                if matches!(e.as_inner(), WebDriverErrorInner::HttpError(_)) {
                    Err(LaunchError::Transport(message))
                } else {
                    Err(LaunchError::Other(message))
                }
            }
        }
    }

    /// Ends the session and stops tauri-driver (SIGTERM, so its WebKitWebDriver child exits too).
    pub async fn close(mut self) {
        let _ = self.driver.clone().quit().await;
        stop(&mut self.driver_process);
        // An app that outlives its test would show up in the next one: its tray icon docks in
        // the next test's tray host, where a click on "the" icon can reach the wrong app.
        let deadline = Instant::now() + Duration::from_secs(5);
        while !apps_on(&self.home).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        for pid in apps_on(&self.home) {
            eprintln!("the app (pid {pid}) outlived its WebDriver session; killing it");
        }
        kill_apps_on(&self.home);
    }
}

/// Why a launch failed: a dropped connection is worth another try, anything else is not.
#[derive(Debug)]
enum LaunchError {
    Transport(String),
    Other(String),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::Transport(m) | LaunchError::Other(m) => f.write_str(m),
        }
    }
}

fn kill_apps_on(home: &Path) {
    for pid in apps_on(home) {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}

fn stop(process: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &process.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = process.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = process.kill();
    let _ = process.wait();
}

/// Where a test's screenshots go.
pub fn screenshot_dir() -> PathBuf {
    target_dir().join("e2e-screenshots")
}

/// Saves a screenshot and the page source as `<dir>/<label>.png` / `.html`; returns the png path.
pub async fn capture(driver: &WebDriver, label: &str) -> TestResult<PathBuf> {
    let dir = screenshot_dir();
    std::fs::create_dir_all(&dir)?;
    let png = dir.join(format!("{label}.png"));
    driver.execute(REPAINT_MARK_START, vec![]).await?;
    let shot = driver.screenshot(&png).await;
    driver.execute(REPAINT_MARK_STOP, vec![]).await?;
    shot?;
    if let Ok(source) = driver.source().await {
        let _ = std::fs::write(dir.join(format!("{label}.html")), source);
    }
    Ok(png)
}

/// The window as a PNG, base64-encoded (the same repaint as `capture`): what a person sees, for
/// a test to read pixels from.
pub async fn screenshot_base64(driver: &WebDriver) -> TestResult<String> {
    driver.execute(REPAINT_MARK_START, vec![]).await?;
    let shot = driver.screenshot_as_png_base64().await;
    driver.execute(REPAINT_MARK_STOP, vec![]).await?;
    Ok(shot?)
}

/// Drawn without compositing (a machine without a GPU, as this one: `src-tauri/rendering.rs`),
/// WebKit's WebDriver screenshot waits for the window's next drawing, which an idle page never
/// does: the screenshot hung. A one-pixel mark, all but transparent, changes for a moment so
/// there is a next drawing; it is gone again before anything else is asked of the page.
const REPAINT_MARK_START: &str = include_str!("../../scripts/lib/repaint-mark.js");
const REPAINT_MARK_STOP: &str = "document.getElementById('e2e-repaint-mark')?.remove();";

/// Runs `scenario` against a fresh app on `home`, always quits it, then reports the outcome.
/// A failed or panicking scenario leaves `<target>/e2e-screenshots/<test>.png`. With
/// `AMBRY_E2E_SCREENSHOTS=all` a passing one does too (to look at the UI).
pub async fn run<F, Fut>(
    test: &str,
    home: &Path,
    extra_env: &[(&str, &Path)],
    scenario: F,
) -> TestResult
where
    F: FnOnce(WebDriver) -> Fut,
    Fut: std::future::Future<Output = TestResult> + Send + 'static,
{
    let app = App::launch(home, extra_env).await?;
    // A task of its own, so an assertion that panics still lets us screenshot and quit.
    let outcome = match tokio::spawn(scenario(app.driver.clone())).await {
        Ok(result) => result,
        Err(join) => Err(format!("the scenario panicked: {}", panic_message(join)).into()),
    };
    let want_shot =
        outcome.is_err() || std::env::var("AMBRY_E2E_SCREENSHOTS").is_ok_and(|v| v == "all");
    let shot = if want_shot {
        Some(capture(&app.driver, test).await)
    } else {
        None
    };
    app.close().await;
    match (outcome, shot) {
        (Err(e), Some(Ok(png))) => Err(format!("{e}\n(screenshot: {})", png.display()).into()),
        (Err(e), Some(Err(shot_error))) => {
            Err(format!("{e}\n(no screenshot: {shot_error})").into())
        }
        (outcome, _) => outcome,
    }
}

fn panic_message(join: tokio::task::JoinError) -> String {
    match join.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "(no message)".into()),
        Err(e) => e.to_string(),
    }
}

/// This crate's directory: the one cargo runs the test from now, else the one it was built in
/// (a build cache shared between checkouts may hold a binary built in another, gone since).
pub fn manifest_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into)
}
