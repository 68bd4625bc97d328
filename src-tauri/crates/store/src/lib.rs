//! Ambry's store, the lowest layer: every memory file and the places they live.
//!
//! Owns: the error vocabulary every layer shares (`error`), private and atomic file I/O
//! (`storage`), the home's layout (`home`), memories in their scopes with archive, team and
//! trust (`memory`), projects and their anchors (`project`, `project_lookup`, `anchors`),
//! configuration (`config`), health checks' shape (`doctor`), the index database's owner
//! (`index_db`) and safe rendering of memory text (`render`).
//! Deliberately does not: rank, read transcripts, compose, sync or judge (the layers above do),
//! or know about Tauri, clap or a terminal.

pub mod anchors;
pub mod config;
pub mod doctor;
pub mod error;
pub mod home;
pub mod index_db;
pub mod memory;
pub mod project;
pub mod project_lookup;
pub mod render;
pub mod storage;
