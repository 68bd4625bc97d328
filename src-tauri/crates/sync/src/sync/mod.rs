//! Personal sync on git (DESIGN §15): one person's memory on every machine they use, through a
//! git remote they own. Git is the transport and the history; the store stays the only writer
//! of memory files.
//!
//! Owns: the sync repository in `AMBRY_HOME/sync/repo`, the allowlist of what travels, the
//! file-by-file merge, the checks on what a remote sends, applying the result through the
//! store, and the state `sync status` reads.
//! `auto` decides when an automatic sync is due; the workspace's runner acts on it.
//! Deliberately does not: run syncs on a timer itself, read the configuration or the clock (the workspace passes the remote
//! and `now`), or touch the team scope.

pub mod allowlist;
mod apply;
pub mod auto;
mod conflicts;
pub mod engine;
mod error;
mod export;
pub mod git;
pub mod inspect;
pub mod merge;
pub mod repo;
pub mod state;
mod status;

pub use conflicts::{dismiss_conflict, use_other};
pub use engine::{check_remote, sync, SyncReport};
pub use error::SyncError;
pub use inspect::Refused;
pub use merge::Side;
pub use state::{LastError, SyncConflict, SyncState};
pub use status::is_initialized;
pub use status::{conflicts, doctor_check, status, unsent, SyncStatus};
