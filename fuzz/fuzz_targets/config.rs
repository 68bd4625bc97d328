//! `config.toml` as a person may write it: a config parses or fails with an error naming a line
//! inside the file, never a panic.
#![no_main]

use ambry_store::config::{Config, ConfigError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match Config::parse(text, "config.toml") {
        Ok(_) => {}
        Err(ConfigError::Invalid { line, .. }) => assert!(line >= 1 && line <= text.lines().count().max(1) + 1, "line {line}"),
        Err(other) => panic!("parsing text gave a read error: {other}"),
    }
});
