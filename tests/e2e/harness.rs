//! Launching the real app under tauri-driver and talking to it through WebDriver.
//!
//! Each `App` gets its own tauri-driver on free ports and its own ENGRAM_HOME, so tests are
//! independent. Always `close()` an app: a session left open makes teardown hang.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use thirtyfour::prelude::*;
use thirtyfour::Capabilities;

pub type TestResult<T = ()> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub struct App {
    pub driver: WebDriver,
    driver_process: Child,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn tauri_driver_binary() -> PathBuf {
    let from_cargo_home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin/tauri-driver"));
    match from_cargo_home {
        Some(p) if p.exists() => p,
        _ => PathBuf::from("tauri-driver"),
    }
}

fn wait_for_port(port: u16, deadline: Instant) -> TestResult {
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("nothing listens on port {port}; is tauri-driver installed and WebKitWebDriver present?").into())
}

impl App {
    /// Starts the app binary on `home` (used as ENGRAM_HOME) with `cwd` as its working directory.
    pub async fn launch(home: &Path, extra_env: &[(&str, &str)]) -> TestResult<App> {
        let port = free_port();
        let native_port = free_port();
        let mut cmd = Command::new(tauri_driver_binary());
        cmd.args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
            .env("ENGRAM_HOME", home)
            .env("NO_AT_BRIDGE", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let mut driver_process = cmd.spawn().map_err(|e| format!("cannot start tauri-driver: {e}"))?;
        // tauri-driver listens before its WebKitWebDriver child does: wait for both.
        let deadline = Instant::now() + Duration::from_secs(20);
        if let Err(e) = wait_for_port(port, deadline).and_then(|_| wait_for_port(native_port, deadline)) {
            let _ = driver_process.kill();
            return Err(e);
        }
        let mut caps = Capabilities::new();
        caps.set("browserName", "wry")?;
        caps.set("tauri:options", serde_json::json!({ "application": env!("CARGO_BIN_EXE_engram-app") }))?;
        match WebDriver::new(format!("http://127.0.0.1:{port}"), caps).await {
            Ok(driver) => Ok(App { driver, driver_process }),
            Err(e) => {
                stop(&mut driver_process);
                Err(format!("cannot open a WebDriver session: {e}").into())
            }
        }
    }

    /// Ends the session and stops tauri-driver (SIGTERM, so its WebKitWebDriver child exits too).
    pub async fn close(mut self) {
        let _ = self.driver.quit().await;
        stop(&mut self.driver_process);
    }
}

fn stop(process: &mut Child) {
    let _ = Command::new("kill").args(["-TERM", &process.id().to_string()]).status();
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

/// Runs `scenario` against a fresh app and always closes it, then reports the outcome.
pub async fn with_app<F, Fut>(home: &Path, scenario: F) -> TestResult
where
    F: FnOnce(WebDriver) -> Fut,
    Fut: std::future::Future<Output = TestResult>,
{
    let app = App::launch(home, &[]).await?;
    let outcome = scenario(app.driver.clone()).await;
    app.close().await;
    outcome
}
