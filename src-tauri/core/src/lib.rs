//! Ambry core: every rule about memories, retrieval, sessions and composition lives here.
//!
//! Owns: the on-disk layout and its I/O policy (atomic, locked, archived writes), ranking,
//! the session index, prompt composition, embeddings and configuration.
//! Deliberately does not: know about Tauri, clap or a terminal; read the clock or the process
//! environment deep inside logic (callers pass paths, config and `now` in); print or exit.

pub mod agents;
pub mod anchors;
pub mod compose;
pub mod compose_service;
pub mod config;
pub mod config_edit;
pub mod desktop;
pub mod doctor;
pub mod editor;
pub mod embed;
pub mod error;
mod error_registry;
pub mod home;
pub mod import;
mod index_db;
pub mod instructions;
pub mod ledger;
pub mod lifecycle;
pub mod memory;
pub mod project;
pub mod project_lookup;
pub mod rank;
pub mod render;
pub mod sessions;
pub mod storage;
pub mod usage;
pub mod workspace;

pub use error::{ErrorCode, ErrorReport};
pub use error_registry::report;
pub use home::AmbryHome;
pub use workspace::{LaunchEnv, Workspace};
