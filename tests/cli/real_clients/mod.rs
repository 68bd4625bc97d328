//! The real Claude Code and Codex CLIs (pinned npm versions) driven headless against a local
//! mock of their model APIs: what the model receives from Ambry's hooks and MCP tools.

mod annotate;
mod claude;
mod client_facts;
mod codex;
mod context;
mod conversation;
mod distill;
mod home;
mod journey;
mod mock_api;
mod process;
mod review_ask;
mod seed;
mod team;
mod teeth;
pub(crate) mod world;
