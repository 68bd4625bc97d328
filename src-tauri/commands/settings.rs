//! Settings: every settable key of config.toml (changed here, written back with its comments)
//! and the `ambry doctor` checks.

use ambry_core::Config;
use ambry_core::ErrorReport;
use ambry_core::SessionFolder;
use ambry_core::SettingView;
use ambry_core::{overall_status, Check, Status};
use serde::Serialize;
use tauri::AppHandle;

use crate::ipc_error::{front_end, IpcResult};
use crate::state::off_main;
use ambry_core::FrontEndCode;

#[derive(Debug, Serialize)]
pub struct Settings {
    pub home: String,
    pub config_file: String,
    pub config_exists: bool,
    /// The effective configuration (defaults filled in), or why the file does not load.
    pub config: Result<Config, ErrorReport>,
    /// Every settable key with its value and default (empty when the file does not load).
    pub settings: Vec<SettingView>,
    pub status: Status,
    pub checks: Vec<Check>,
    pub version: &'static str,
    /// The transcript folders the session index reads, per source switched on in config.
    pub session_folders: Vec<SessionFolder>,
}

/// The same checks `ambry doctor` runs; the app has no working directory, so each project is
/// covered by the projects check.
#[tauri::command]
pub async fn get_settings(app: AppHandle) -> IpcResult<Settings> {
    off_main(app, |ws| {
        let checks = ws.doctor(None);
        let config_file = ws.home().config_file();
        Ok(Settings {
            session_folders: ws.session_folders(),
            home: ws.home().root().display().to_string(),
            config_exists: config_file.is_file(),
            config_file: config_file.display().to_string(),
            status: overall_status(&checks),
            config: ws.config().map_err(|e| ErrorReport::of(&e)),
            settings: ws.settings().unwrap_or_default(),
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

/// Where desktop autostart entries live, as the launch environment resolved it.
fn config_home(ws: &ambry_core::Workspace) -> IpcResult<std::path::PathBuf> {
    ws.env().config_home.clone().ok_or_else(|| {
        front_end(
            FrontEndCode::NoHome,
            "neither XDG_CONFIG_HOME nor HOME is set",
        )
    })
}

/// Whether the app starts (tray only) at login.
#[tauri::command]
pub async fn get_autostart(app: AppHandle) -> IpcResult<bool> {
    off_main(app, |ws| {
        Ok(ambry_core::autostart_enabled(&config_home(ws)?))
    })
    .await
}

/// Adds or removes the XDG autostart entry for this executable (started with `--tray`).
#[tauri::command]
pub async fn set_autostart(app: AppHandle, enabled: bool) -> IpcResult<bool> {
    off_main(app, move |ws| {
        let exec = std::env::current_exe().map_err(|e| {
            front_end(
                FrontEndCode::LaunchFailed,
                format!("cannot tell where the app is installed: {e}"),
            )
        })?;
        let home = config_home(ws)?;
        ambry_core::set_autostart(&home, &exec, enabled)?;
        Ok(ambry_core::autostart_enabled(&home))
    })
    .await
}

/// Opens config.toml in the editor, creating it first (every key at its default, commented)
/// when there is none. Returns what was launched and whether the file was created.
#[tauri::command]
pub async fn open_config(app: AppHandle) -> IpcResult<(String, bool)> {
    off_main(app, |ws| {
        let path = ws.home().config_file();
        let created = ambry_core::create_starter_config(&path)?;
        Ok((crate::editor_launch::open_file(ws, &path)?, created))
    })
    .await
}

/// Writes one key of config.toml (`value` null: back to its default) and returns every
/// setting as it now is. Nothing else needs telling: each reader loads the changed file.
#[tauri::command]
pub async fn set_setting(
    app: AppHandle,
    section: String,
    key: String,
    value: Option<serde_json::Value>,
) -> IpcResult<Vec<SettingView>> {
    off_main(app, move |ws| {
        let config = ws.set_setting(&section, &key, value.as_ref())?;
        Ok(ambry_core::settings_of(&config))
    })
    .await
}

/// Every settable key with its value and default, without the doctor's checks (cheap enough
/// for a view that shows a policy by its values, like the Archive).
#[tauri::command]
pub async fn list_settings(app: AppHandle) -> IpcResult<Vec<SettingView>> {
    off_main(app, |ws| Ok(ws.settings()?)).await
}
