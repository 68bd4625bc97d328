//! Reading a hook payload from stdin without letting the agent's pipe hold the hook.
//!
//! Owns: the payload's bounds — at most `PAYLOAD_MAX` bytes, and done as soon as the bytes form
//! one complete JSON value or `PAYLOAD_WAIT` has passed, whether or not the agent ever closes
//! the pipe (an agent that leaves stdin open must not cost a turn its hook).
//! Deliberately does not: interpret the payload; core's `compose::hook` does.

use std::io::Read;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// An agent writes the payload at once; a prompt with a large paste is still far below this.
pub const PAYLOAD_MAX: usize = 8 << 20;
/// How long the hook waits for the payload to be complete.
pub const PAYLOAD_WAIT: Duration = Duration::from_secs(2);

/// The payload text from `input`: stops at the end of the first complete JSON value, at end of
/// input (what arrived, which the parser then judges), at `PAYLOAD_MAX` bytes (an error) or at
/// `wait` (an error saying how much had arrived: a payload cut by the deadline would only read
/// as broken JSON). The reading runs on a helper thread, left behind if the pipe never closes.
pub fn read_payload(input: impl Read + Send + 'static, wait: Duration) -> Result<String, String> {
    let deadline = Instant::now() + wait;
    let (chunks, arrived) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut input = input;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match input.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if chunks.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let mut payload = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match arrived.recv_timeout(left) {
            Ok(chunk) => {
                payload.extend_from_slice(&chunk);
                if payload.len() > PAYLOAD_MAX {
                    return Err(format!("the hook payload is over {PAYLOAD_MAX} bytes"));
                }
                if is_complete_json(&payload) {
                    break;
                }
            }
            // End of input: judge what arrived.
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) if payload.is_empty() => {
                return Err(format!(
                    "no payload arrived within {} ms (the agent left stdin open without writing \
                     one); nothing was composed for this turn",
                    wait.as_millis()
                ))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "the payload was still incomplete after {} ms ({} bytes arrived); nothing was \
                     composed for this turn",
                    wait.as_millis(),
                    payload.len()
                ))
            }
        }
    }
    String::from_utf8(payload).map_err(|_| "the hook payload is not UTF-8".to_string())
}

fn is_complete_json(bytes: &[u8]) -> bool {
    // A payload is an object: only a chunk ending in `}` can complete it (keeps this linear).
    let last = bytes.iter().rev().find(|b| !b.is_ascii_whitespace());
    last == Some(&b'}')
        && matches!(
            serde_json::Deserializer::from_slice(bytes)
                .into_iter::<serde::de::IgnoredAny>()
                .next(),
            Some(Ok(_))
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipe whose writer stays open after the payload: the read ends at the value's end.
    #[test]
    fn a_complete_payload_on_a_pipe_left_open_is_read_without_waiting_for_eof() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        use std::io::Write;
        writer.write_all(br#"{"prompt": "hi"}"#).unwrap();
        let text = read_payload(reader, Duration::from_secs(3600)).unwrap();
        assert_eq!(text, r#"{"prompt": "hi"}"#);
        drop(writer);
    }

    #[test]
    fn an_endless_stream_is_refused_at_the_bound() {
        let err = read_payload(std::io::repeat(b' '), Duration::from_secs(3600)).unwrap_err();
        assert!(err.contains("over"), "{err}");
    }

    /// At the deadline the hook says what happened, rather than hand a cut payload to the JSON
    /// parser ("EOF while parsing" named no cause).
    #[test]
    fn an_incomplete_payload_on_an_open_pipe_ends_at_the_deadline_saying_so() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        use std::io::Write;
        writer.write_all(br#"{"prompt": "#).unwrap();
        let err = read_payload(reader, Duration::from_millis(50)).unwrap_err();
        assert!(
            err.contains("still incomplete after 50 ms (11 bytes arrived)"),
            "{err}"
        );
        drop(writer);
    }

    #[test]
    fn a_pipe_left_open_without_a_payload_ends_at_the_deadline_saying_so() {
        let (reader, writer) = std::io::pipe().unwrap();
        let err = read_payload(reader, Duration::from_millis(50)).unwrap_err();
        assert!(err.contains("no payload arrived within 50 ms"), "{err}");
        drop(writer);
    }
}
