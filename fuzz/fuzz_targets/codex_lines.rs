//! Codex transcript lines as the index reads them: any bytes (invalid UTF-8, NUL, deep JSON,
//! odd shapes) are a message, a deliberate skip or a malformed line, never a panic.
#![no_main]

use ambry_sessions::sessions::{parse_transcript_lines, SourceKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let lines = data.split(|&b| b == b'\n').filter(|l| !l.trim_ascii().is_empty()).count() as u64;
    for include_tools in [false, true] {
        let counts = parse_transcript_lines(SourceKind::Codex, data, include_tools);
        // Each non-blank line is counted at most once as skipped or malformed; messages come
        // only from lines.
        assert!(lines > 0 || counts.messages == 0);
        assert!(counts.skipped + counts.malformed <= lines);
    }
});
