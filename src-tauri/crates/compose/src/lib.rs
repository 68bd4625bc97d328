//! Ambry's composition: what an agent's hooks get, and what its context already holds.
//!
//! Owns: session-start and per-turn composition (`compose`), the injection ledger (`ledger`),
//! usage (`usage`), rules checked at the tool call (`enforce`), connecting Claude Code and Codex
//! (`agents`) and their instruction files (`instructions`).
//! Deliberately does not: judge memories against each other (lifecycle does) or serve requests
//! (the compose service in the façade does).

pub mod agents;
pub mod compose;
pub mod enforce;
pub mod instructions;
pub mod ledger;
pub mod usage;
