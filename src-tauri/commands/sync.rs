//! Personal sync in the app (DESIGN §15): where sync stands for the sidebar's status line, Sync
//! now, and the Review view's answers to a "changed on two machines" conflict.
//!
//! Deliberately does not: hold any rule of sync (core's `sync` does) or schedule syncs.

use ambry_core::{SyncConflict, SyncReport, SyncStatus};
use chrono::Utc;
use tauri::AppHandle;

use crate::ipc_error::IpcResult;
use crate::state::{in_background, off_main};

#[tauri::command]
pub async fn sync_status(app: AppHandle) -> IpcResult<SyncStatus> {
    in_background(app, |ws| Ok(ws.sync_status()?)).await
}

/// Syncs with the configured remote now (the status line's and the tray's Sync now).
#[tauri::command]
pub async fn sync_now(app: AppHandle) -> IpcResult<SyncReport> {
    off_main(app, |ws| Ok(ws.sync_now(Utc::now(), false)?)).await
}

/// Keeps the version in the file: the conflict leaves the inbox.
#[tauri::command]
pub async fn sync_keep(app: AppHandle, id: String) -> IpcResult<bool> {
    off_main(app, move |ws| Ok(ws.sync_dismiss(&id)?)).await
}

/// Takes the other machine's version instead (the kept one is archived).
#[tauri::command]
pub async fn sync_use_other(app: AppHandle, id: String) -> IpcResult<Option<SyncConflict>> {
    off_main(app, move |ws| Ok(ws.sync_use_other(&id, Utc::now())?)).await
}
