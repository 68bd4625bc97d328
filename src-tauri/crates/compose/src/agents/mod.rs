//! Agent integration (DESIGN §13): connecting Claude Code and Codex to Ambry in their own
//! configuration files, and reading what those agents already keep.
//!
//! Owns: where each agent keeps its files (`AgentEnv`), the edits `ambry connect` and
//! `ambry disconnect` make to them (in place, only the spans Ambry owns), Codex's hook trust
//! as Codex computes it, the connection status shown by doctor and the app, and the hook
//! payloads those agents send to `ambry compose --hook`.
//! Deliberately does not: read the process environment (callers resolve `AgentEnv` and the
//! binary), run the MCP server, or compose memory blocks.

mod ambry_command;
mod claude_config;
mod codex_config;
pub mod codex_trust;
mod config_file;
mod connect;
mod env;
mod error;
mod hooks_json;
mod json_edit;
mod record;
mod status;

pub use ambry_command::AmbryCommand;
pub use codex_trust::{HookTrust, Trust};
pub use connect::{apply, plan, Action, ConnectOptions, ConnectReport};
pub use connect::{FileChange, Plan, PlannedEdit};
pub use env::{Agent, AgentEnv};
pub use error::AgentError;
pub use record::{ConnectRecord, FILE_NAME as RECORD_FILE};
pub use status::PartState;
pub use status::{agent_checks, connection, AgentConnection};
