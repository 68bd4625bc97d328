//! Ending the app from outside: SIGTERM (a logout, `kill`, a service manager), SIGINT (Ctrl-C in
//! the terminal that started it) and SIGHUP (that terminal closed) end it cleanly, as its Quit
//! does: the process exits with status 0 and the compose socket it served agents on is gone.
//!
//! The app is started directly (no WebDriver session): a person's app has none, and the
//! driver's own way of closing the window must not be what makes the test pass.

use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{app_binary, TestResult};
use crate::seed::Sandbox;

/// The app on `sandbox`; killed (by its id) if the test ends while it still runs.
struct RunningApp(Child);

impl Drop for RunningApp {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn launch(sandbox: &Sandbox) -> TestResult<RunningApp> {
    ensure!(
        std::env::var_os("DISPLAY").is_some(),
        "DISPLAY is not set: run the E2E tests through scripts/e2e.sh (Xvfb)"
    );
    let child = Command::new(app_binary())
        .env("AMBRY_HOME", &sandbox.home)
        .env("HOME", &sandbox.user_home)
        .env("NO_AT_BRIDGE", "1")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("AMBRY_MODELS_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", app_binary().display()))?;
    Ok(RunningApp(child))
}

/// Waits until the app's compose service answers on its socket.
fn wait_for_service(app: &mut RunningApp, socket: &std::path::Path) -> TestResult {
    // The service starts after the first paint (or 5 s without one); the debug build is slow.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if UnixStream::connect(socket).is_ok() {
            return Ok(());
        }
        if let Some(status) = app.0.try_wait()? {
            return Err(format!(
                "the app exited ({status}) before serving on {}",
                socket.display()
            )
            .into());
        }
        ensure!(
            Instant::now() < deadline,
            "no compose service on {} 30 s after launch",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn ends_cleanly_on(signal: &str) -> TestResult {
    let sandbox = Sandbox::new()?;
    sandbox.save_user(
        "deploy-window",
        "project",
        "Deploys happen Tuesday mornings",
        "Never on Fridays.\n",
    )?;
    let socket = sandbox.home.join("compose.sock");
    let mut app = launch(&sandbox)?;
    wait_for_service(&mut app, &socket)?;

    let pid = app.0.id().to_string();
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()?;
    ensure!(sent.success(), "kill -{signal} {pid} failed");
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = app.0.try_wait()? {
            break status;
        }
        ensure!(
            Instant::now() < deadline,
            "the app still runs 10 s after SIG{signal}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    ensure!(
        status.success(),
        "the app ended with {status} on SIG{signal}, not as its Quit does (exit status 0)"
    );
    ensure!(
        !socket.exists(),
        "SIG{signal} left {} behind",
        socket.display()
    );
    Ok(())
}

#[test]
#[ignore = "needs a display: run through scripts/e2e.sh"]
fn sigterm_ends_the_app_and_removes_its_compose_socket() -> TestResult {
    ends_cleanly_on("TERM")
}

#[test]
#[ignore = "needs a display: run through scripts/e2e.sh"]
fn sigint_and_sighup_end_the_app_the_same_way() -> TestResult {
    ends_cleanly_on("INT")?;
    ends_cleanly_on("HUP")
}
