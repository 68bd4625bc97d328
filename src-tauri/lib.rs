//! The Engram desktop shell: window, tray and IPC commands as thin adapters over engram-core.
//!
//! Owns: Tauri setup, managed state, mapping core results and watcher changes to IPC and events.
//! Deliberately does not: hold any rule about memories, ranking or sessions.

pub fn run() {
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .run(tauri::generate_context!())
        .expect("error while running Engram");
}
