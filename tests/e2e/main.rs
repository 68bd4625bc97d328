//! End-to-end tests of the real desktop app: the real WebKit window driven through WebDriver
//! (tauri-driver + WebKitWebDriver) under Xvfb. Run with `scripts/e2e.sh`.

mod harness;
mod smoke;
