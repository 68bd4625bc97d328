//! Agent integration (DESIGN §13): connecting Claude Code and Codex to Ambry in their own
//! configuration files, and reading what those agents already keep.
//!
//! Owns: where each agent keeps its files (`AgentEnv`), the edits `ambry connect` and
//! `ambry disconnect` make to them, the connection status shown by doctor and the app, and the
//! hook payloads those agents send to `ambry compose --hook`.
//! Deliberately does not: read the process environment (callers resolve `AgentEnv`), run the MCP
//! server, or compose memory blocks.

mod claude_config;
mod codex_config;
mod config_file;
mod connect;
mod env;
mod error;
pub mod hook_payload;
mod hooks_json;
mod json_doc;
mod status;

pub use connect::{apply, plan, Action, AmbryCommand, ConnectReport, FileChange, PlannedEdit};
pub use env::{Agent, AgentEnv};
pub use error::AgentError;
pub use status::{agent_checks, connection, AgentConnection, PartState};
