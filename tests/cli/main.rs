//! End-to-end tests of the real `ambry` binary on a temporary AMBRY_HOME.

mod agents;
mod archive;
mod compose;
mod concurrency;
mod crash;
mod distill;
mod doctor;
mod embeddings;
mod hostile;
mod lifecycle;
mod links_and_modes;
mod mcp;
mod mcp_writes;
mod memory;
mod memory_test;
mod real_clients;
mod recall_service;
mod review_ask;
mod robustness;
mod rules;
mod service;
mod sessions;
mod support;
mod sync;
mod team;
mod when;
