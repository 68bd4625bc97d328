//! The tray icon and its menu: Open, Search memories…, Reindex, Quit.
//!
//! Without a tray host (no session bus) the icon is simply absent; the app works without it.
//!
//! Under a tray host that only speaks XEmbed (no StatusNotifierWatcher on the bus: trayer,
//! stalonetray, older panels) the tray library, libayatana-appindicator, falls back to a
//! GtkStatusIcon, and GTK logs one `Gdk-CRITICAL … gdk_window_thaw_toplevel_updates:
//! assertion 'window->update_and_descendants_freeze_count > 0' failed` as the icon docks
//! (not on clicks). A bare C program that only creates an indicator logs the same line under
//! the same host; a bare GtkStatusIcon does not, nor does the app without a tray host. It
//! comes from that fallback, costs nothing, and is left visible rather than filtered out of
//! GTK's log.

use tauri::image::Image;
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Manager};

use crate::events;

pub fn install(app: &AppHandle) {
    if let Err(e) = try_install(app) {
        tracing::info!("no tray icon: {e}");
    }
}

fn try_install(app: &AppHandle) -> tauri::Result<()> {
    let open = MenuItem::with_id(app, "open", "Open Ambry", true, None::<&str>)?;
    let search = MenuItem::with_id(app, "search", "Search memories…", true, None::<&str>)?;
    let reindex = MenuItem::with_id(app, "reindex", "Reindex", true, None::<&str>)?;
    // Personal sync (DESIGN §15): the window's Sync now, so its status line says how it went.
    let sync = MenuItem::with_id(app, "sync", "Sync now", true, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", "Quit", true, None::<&str>)?;
    let separator = PredefinedMenuItem::separator(app)?;
    let menu = Menu::with_items(app, &[&open, &search, &reindex, &sync, &separator, &quit])?;
    let icon = Image::from_bytes(include_bytes!("../icons/tray.png"))?;
    TrayIconBuilder::with_id("ambry")
        .icon(icon)
        .tooltip("Ambry")
        .menu(&menu)
        .on_menu_event(|app, event| match event.id().as_ref() {
            "open" => show_window(app),
            "search" => {
                show_window(app);
                events::tray_action(app, "search");
            }
            "reindex" => {
                show_window(app);
                crate::commands::reindex::start_reindex(app.clone());
            }
            "sync" => {
                show_window(app);
                events::tray_action(app, "sync");
            }
            "quit" => app.exit(0),
            _ => {}
        })
        .build(app)?;
    Ok(())
}

fn show_window(app: &AppHandle) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}
