//! Ending the app cleanly: SIGTERM, SIGINT and SIGHUP ask the app to exit the way the tray's
//! Quit does, and on exit the compose service stops and removes its socket.
//!
//! The signals are watched by a GLib source on the GTK main loop that the window already runs:
//! GLib's handler only wakes that loop, and the exit request is made from the loop itself,
//! between two events, like a click on the tray's Quit. No thread of its own, nothing done
//! inside the signal handler.
//! Deliberately does not: decide anything about the service; core's `ServiceHandle` removes the
//! socket when stopped.

use std::sync::Mutex;

use ambry_core::{ServiceError, ServiceHandle};
use tauri::{AppHandle, Manager};

/// The app's compose service, once started; closed for good when the app exits, so a service
/// that would start during the exit does not start at all.
#[derive(Default)]
pub struct ComposeServiceSlot(Mutex<Slot>);

#[derive(Default)]
struct Slot {
    running: Option<ServiceHandle>,
    closed: bool,
}

impl ComposeServiceSlot {
    /// Starts the service with `spawn` unless the app is already exiting.
    pub fn start(&self, spawn: impl FnOnce() -> Result<ServiceHandle, ServiceError>) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if slot.closed || slot.running.is_some() {
            return;
        }
        match spawn() {
            Ok(handle) => slot.running = Some(handle),
            Err(e) => tracing::warn!("compose service not started: {e}"),
        }
    }

    fn close(&self) -> Option<ServiceHandle> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        slot.closed = true;
        slot.running.take()
    }
}

/// Stops the compose service (its socket is gone when this returns). Called once the event
/// loop has ended, for every way out: the tray's Quit, the last window closed, a signal.
pub fn stop_compose_service(app: &AppHandle) {
    if let Some(handle) = app
        .try_state::<ComposeServiceSlot>()
        .and_then(|slot| slot.close())
    {
        handle.stop();
    }
}

/// SIGTERM, SIGINT and SIGHUP end the app as its Quit does.
#[cfg(target_os = "linux")]
pub fn exit_on_termination_signals(app: &AppHandle) {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let app = app.clone();
        // Runs on the main loop's thread, not in the signal handler.
        glib::unix_signal_add(signal, move || {
            tracing::info!("signal {signal}: exiting");
            app.exit(0);
            glib::ControlFlow::Continue
        });
    }
}

#[cfg(not(target_os = "linux"))]
pub fn exit_on_termination_signals(_app: &AppHandle) {}
