//! End-to-end tests of the real `engram` binary on a temporary ENGRAM_HOME.

mod agents;
mod archive;
mod compose;
mod concurrency;
mod crash;
mod doctor;
mod memory;
mod memory_test;
mod robustness;
mod service;
mod sessions;
mod support;
mod embeddings;
mod mcp;
