//! The part of the `ambry` command other crates reach: the MCP server (`ambry mcp`), so the
//! fuzz target drives the very request handling the binary runs, over an in-memory pipe
//! instead of stdio.
//!
//! Owns: nothing of its own; `mcp` owns the server.
//! Deliberately does not: expose the command tree, printing or exit codes; those stay in the
//! binary (`main.rs`).

pub mod mcp;
