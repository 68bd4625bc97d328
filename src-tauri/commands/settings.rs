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

/// The same checks `engram doctor` runs, for the user scope (projects are listed separately).
#[tauri::command]
pub async fn get_settings(app: AppHandle) -> IpcResult<Settings> {
    off_main(app, |state| {
        let config = state.config().map_err(|e| e.message);
        let store = state.store(None)?;
        let mut checks = doctor::home_checks(&state.home, &config);
        // The app has no working directory, so the "no project resolved" check does not apply;
        // each project is covered by the projects check.
        checks.extend(doctor::store_checks(&store).into_iter().filter(|c| c.area != "project memory"));
        checks.extend(doctor::project_checks(&state.home));
        checks.extend(engram_core::sessions::session_checks(&state.home.index_db()));
        if let Ok(config) = &config {
            checks.extend(engram_core::embed::embed_checks(&state.model_paths(config), config.retrieval.strategy).to_checks());
        }
        Ok(Settings {
            home: state.home.root().display().to_string(),
            config_file: state.home.config_file().display().to_string(),
            config_exists: state.home.config_file().is_file(),
            status: doctor::overall(&checks),
            config,
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
