//! The Engram desktop shell: window, tray and IPC commands as thin adapters over engram-core.
//!
//! Owns: Tauri setup, managed state, mapping core results and watcher changes to IPC and events.
//! Deliberately does not: hold any rule about memories, ranking or sessions.

mod commands;
mod editor_launch;
mod events;
mod ipc_error;
mod state;
mod tray;

use std::path::PathBuf;

use engram_core::EngramHome;
use tauri::Manager;

use state::{AppState, LaunchEnv};

pub fn run() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .try_init();
    let env = LaunchEnv::from_process();
    let home = EngramHome::resolve(None, std::env::var_os("ENGRAM_HOME").map(PathBuf::from), env.user_home.clone())
        .unwrap_or_else(|| EngramHome::new(".engram"));

    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(AppState::new(home, env))
        .setup(|app| {
            let handle = app.handle().clone();
            events::watch_memories(&handle);
            events::watch_sessions(&handle);
            tray::install(&handle);
            after_first_paint(handle);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::memories::list_memories,
            commands::memories::get_memory,
            commands::memories::save_memory,
            commands::memories::forget_memory,
            commands::memories::render_markdown,
            commands::memories::open_in_editor,
            commands::memories::reveal_in_folder,
            commands::search::search_memories,
            commands::compose::compose_preview,
            commands::archive::list_versions,
            commands::archive::version_diff,
            commands::archive::restore_version,
            commands::archive::prune_archive,
            commands::anchors::get_anchor,
            commands::anchors::init_anchor,
            commands::anchors::save_anchor,
            commands::projects::list_projects,
            commands::projects::add_project,
            commands::settings::get_settings,
            commands::settings::first_paint_done,
            commands::agents::agent_connections,
            commands::agents::change_agent_connection,
            commands::reindex::start_reindex,
            commands::reindex::reindex_running,
            commands::sessions::sessions_overview,
            commands::sessions::recall_sessions,
            commands::sessions::list_sessions,
            commands::sessions::session_transcript,
        ])
        .run(tauri::generate_context!())
        .expect("error while running Engram");
}

/// Work that would compete with the first paint for the CPU (two cores here: loading the model
/// during launch took the first paint from ~1.1 s to ~1.9 s) starts once the window has shown
/// its first view: the compose service (whose warm-up loads the model and reads every vector),
/// the search's own model, and the timer that releases an idle model.
fn after_first_paint(app: tauri::AppHandle) {
    std::thread::spawn(move || {
        let state = app.state::<AppState>();
        state.wait_for_first_paint(std::time::Duration::from_secs(5));
        serve_compose(&app);
        engram_core::embed::release_idle_model_in_background(state.env.model_idle);
        if let Ok(config) = state.config() {
            let _ = state.semantic(&config);
        }
    });
}

/// Answers `engram compose` from agents over the home's socket while the window is open, so a
/// turn does not pay for loading the embedding model. Another server on the same home (an
/// `engram serve`) already does that job: the app then leaves it be.
fn serve_compose(app: &tauri::AppHandle) {
    let state = app.state::<AppState>();
    let models_dir = state.env.models_dir.clone().unwrap_or_else(|| state.home.models_dir());
    match engram_core::compose_service::spawn_compose_service(state.home.clone(), models_dir) {
        Ok(handle) => {
            app.manage(RunningComposeService(handle));
        }
        Err(e) => tracing::warn!("compose service not started: {e}"),
    }
}

/// Kept in managed state so the service lives exactly as long as the app.
struct RunningComposeService(#[allow(dead_code)] engram_core::compose_service::ServiceHandle);
