//! End-to-end tests of the real `engram` binary on a temporary ENGRAM_HOME.

mod support;
mod reindex;
