//! Reading a transcript file's complete lines from where the reader stands, each through its
//! source's parser.
//!
//! Owns: what counts as a complete line (a torn last line waits for its newline; a whole record
//! without one is read), the bytes read, and the per-line counts an index run reports.
//! Deliberately does not: decide where to start reading (see `store::tail`), parse a format (see
//! `parse`), or store anything.

use std::fs::File;
use std::io::{BufRead, BufReader};

use super::line::{LineOutcome, Message, SessionState};
use super::parse::parse_line;
use crate::sessions::{IndexSummary, SourceKind};

pub(crate) struct ReadLines {
    /// Bytes of complete lines read (the torn tail, if any, is not counted).
    pub consumed: u64,
    pub messages: Vec<Message>,
}

/// Reads complete lines from the current position, parsing each; stops before a torn line.
pub(crate) fn read_complete_lines(
    file: &mut File,
    source: SourceKind,
    state: &mut SessionState,
    include_tools: bool,
    summary: &mut IndexSummary,
) -> std::io::Result<ReadLines> {
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let mut buf = Vec::new();
    let mut out = ReadLines {
        consumed: 0,
        messages: Vec::new(),
    };
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        if buf.last() != Some(&b'\n') {
            // The last line without its newline: a writer that ended the file there is done
            // with it when it is a whole record, so it is read; a partial one waits for the rest
            // (tried on a copy of the state, which a partial line must not change).
            let mut trial = state.clone();
            match parse_line(source, &mut trial, &buf, include_tools) {
                None | Some(LineOutcome::Malformed) => break,
                Some(outcome) => {
                    *state = trial;
                    out.consumed += n as u64;
                    summary.bytes_read += n as u64;
                    summary.lines += 1;
                    match outcome {
                        LineOutcome::Messages(m) => out.messages.extend(m),
                        LineOutcome::Skipped(kind) => {
                            *summary.lines_skipped.entry(kind).or_default() += 1
                        }
                        LineOutcome::Malformed => {}
                    }
                    break;
                }
            }
        }
        out.consumed += n as u64;
        summary.bytes_read += n as u64;
        summary.lines += 1;
        match parse_line(source, state, &buf, include_tools) {
            None => {}
            Some(LineOutcome::Messages(m)) => out.messages.extend(m),
            Some(LineOutcome::Skipped(kind)) => {
                *summary.lines_skipped.entry(kind).or_default() += 1
            }
            Some(LineOutcome::Malformed) => summary.malformed_lines += 1,
        }
    }
    Ok(out)
}
