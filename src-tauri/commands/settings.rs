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
    /// The transcript folders the session index reads, per source switched on in config.
    pub session_folders: Vec<SessionFolder>,
}

#[derive(Debug, Serialize)]
pub struct SessionFolder {
    pub source: engram_core::sessions::SourceKind,
    pub path: Option<String>,
    pub exists: bool,
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
        let roots = state.session_roots();
        let session_folders = engram_core::sessions::SourceKind::ALL
            .into_iter()
            .filter(|s| config.as_ref().map_or(true, |c| c.sessions.sources.iter().any(|x| x.as_str() == s.as_str())))
            .map(|source| {
                let path = roots.root(source);
                SessionFolder { source, exists: path.is_some_and(|p| p.is_dir()), path: path.map(|p| p.display().to_string()) }
            })
            .collect();
        Ok(Settings {
            session_folders,
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

/// `$XDG_CONFIG_HOME`, else `~/.config`: where desktop autostart entries live.
fn config_home(state: &crate::state::AppState) -> IpcResult<std::path::PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| state.env.user_home.as_ref().map(|h| h.join(".config")))
        .ok_or_else(|| crate::ipc_error::IpcError::new("no_home", "neither XDG_CONFIG_HOME nor HOME is set"))
}

/// Whether the app starts (tray only) at login.
#[tauri::command]
pub async fn get_autostart(app: AppHandle) -> IpcResult<bool> {
    off_main(app, |state| Ok(engram_core::desktop::autostart_enabled(&config_home(state)?))).await
}

/// Adds or removes the XDG autostart entry for this executable (started with `--tray`).
#[tauri::command]
pub async fn set_autostart(app: AppHandle, enabled: bool) -> IpcResult<bool> {
    off_main(app, move |state| {
        let exec = std::env::current_exe()
            .map_err(|e| crate::ipc_error::IpcError::new("io", format!("cannot tell where the app is installed: {e}")))?;
        let home = config_home(state)?;
        engram_core::desktop::set_autostart(&home, &exec, enabled)?;
        Ok(engram_core::desktop::autostart_enabled(&home))
    })
    .await
}

/// Opens config.toml in the editor, creating it first (every key at its default, commented)
/// when there is none. Returns what was launched and whether the file was created.
#[tauri::command]
pub async fn open_config(app: AppHandle) -> IpcResult<(String, bool)> {
    off_main(app, |state| {
        let path = state.home.config_file();
        let created = engram_core::desktop::create_starter_config(&path)?;
        // A config that does not parse must still open, to be fixed: its editor key is then unknown.
        let command = state.config().map(|c| c.editor.command).unwrap_or_default();
        Ok((crate::editor_launch::open_file(&command, &state.env, &path)?, created))
    })
    .await
}
