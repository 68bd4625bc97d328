//! Settings: the effective configuration (read-only) and the `engram doctor` checks.

use engram_core::config::Config;
use engram_core::doctor::{self, Check, Status};
use serde::Serialize;
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::off_main;

#[derive(Debug, Serialize)]
pub struct Settings {
    pub home: String,
    pub config_file: String,
    pub config_exists: bool,
    /// The effective configuration (defaults filled in), or why the file does not load.
    pub config: Result<Config, String>,
    pub status: Status,
    pub checks: Vec<Check>,
    pub version: &'static str,
}

/// The same checks `engram doctor` runs; the app has no working directory, so each project is
/// covered by the projects check.
#[tauri::command]
pub async fn get_settings(app: AppHandle) -> IpcResult<Settings> {
    off_main(app, |ws| {
        let checks = ws.doctor(None);
        let config_file = ws.home().config_file();
        Ok(Settings {
            home: ws.home().root().display().to_string(),
            config_exists: config_file.is_file(),
            config_file: config_file.display().to_string(),
            status: doctor::overall(&checks),
            config: ws.config().map_err(|e| e.to_string()),
            checks,
            version: env!("CARGO_PKG_VERSION"),
        })
    })
    .await
}

/// The UI has painted its first view: the work held back so it would not compete with that
/// paint for the CPU (the compose service's warm-up, the model) may start. Returns the
/// milliseconds since the process started (the first-paint measurement).
#[tauri::command]
pub fn first_paint_done(state: tauri::State<'_, crate::state::AppState>) -> u128 {
    state.mark_first_paint();
    state.started.elapsed().as_millis()
}
