//! The wire format between `ambry compose` and a compose service: one JSON request line, one
//! JSON response line, both carrying the protocol number and the ambry version.
//!
//! Owns: the request and response types, reading a request line (malformed input and version
//! mismatches become error replies, never panics), and reading a response line on the client.
//! Deliberately does not: do I/O or compose; `socket` moves the lines and `service` answers them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::recall_call::{RecallAnswer, RecallCall};
use super::{Refusal, ServiceError};
use ambry_compose::compose::hook::ContextRequest;
use ambry_compose::compose::Composition;
use ambry_store::error::ErrorCode;

/// Bumped on any incompatible change to the types below.
pub const PROTOCOL_VERSION: u32 = 3;
/// A service answers only clients of its own build version, so both print the same block.
pub const AMBRY_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Longer request lines are refused (a prompt is large, but not this large).
pub const MAX_REQUEST_BYTES: usize = 8 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub protocol: u32,
    pub ambry: String,
    pub call: Call,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Call {
    Compose(ComposeCall),
    Status,
    /// `ambry recall` answered by the service (see `recall_call`).
    Recall(RecallCall),
    /// A `PreToolUse` hook's call checked against the rules in scope (DESIGN §16).
    CheckTool(ToolCheckCall),
}

/// A tool call to check, with what decides the answer besides the home's files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCheckCall {
    pub home: PathBuf,
    /// Absolute; the project is resolved from it.
    pub cwd: PathBuf,
    pub check: crate::workspace::ToolCheck,
    pub now: chrono::DateTime<chrono::Utc>,
}

/// Everything that decides the block besides the home's files: the service refuses a call
/// whose home or models directory differs from its own, so the client composes it in-process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComposeCall {
    pub home: PathBuf,
    pub models_dir: PathBuf,
    /// Absolute; the project is resolved from it.
    pub cwd: PathBuf,
    /// The event, session id, source and prompt, as the hook or `compose --query` gave them.
    pub request: ContextRequest,
    /// The client's clock, so a served call records the time the in-process one would.
    pub now: chrono::DateTime<chrono::Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    pub protocol: u32,
    pub ambry: String,
    pub reply: Reply,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    // Boxed: a composition is far larger than the other replies.
    Composed(Box<Composition>),
    Status(ServiceStatus),
    Recalled(RecallAnswer),
    Checked(ambry_compose::enforce::ToolVerdict),
    Error(ErrorReply),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorReply {
    /// Stable snake_case kind, as everywhere in Ambry.
    pub code: String,
    pub message: String,
}

impl ErrorReply {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        ErrorReply {
            code: code.to_string(),
            message: message.into(),
        }
    }

    /// A coded error as the wire carries it: its code and its message.
    pub fn of(error: &impl ErrorCode) -> Self {
        ErrorReply::new(error.code().as_str(), error.to_string())
    }
}

/// What a running service reports about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServiceStatus {
    pub pid: u32,
    pub home: PathBuf,
    pub models_dir: PathBuf,
    /// Compose calls answered with a block since the service started.
    pub composed: u64,
    /// The embedding model id held in memory, if one is loaded.
    pub model_loaded: Option<String>,
}

impl Request {
    pub fn new(call: Call) -> Self {
        Request {
            protocol: PROTOCOL_VERSION,
            ambry: AMBRY_VERSION.to_string(),
            call,
        }
    }

    /// One line of JSON, newline included.
    pub fn to_line(&self) -> String {
        line(self)
    }
}

impl Response {
    pub fn new(reply: Reply) -> Self {
        Response {
            protocol: PROTOCOL_VERSION,
            ambry: AMBRY_VERSION.to_string(),
            reply,
        }
    }

    pub fn error(code: &str, message: impl Into<String>) -> Self {
        Response::new(Reply::Error(ErrorReply::new(code, message)))
    }

    pub fn refused(why: &Refusal) -> Self {
        Response::new(Reply::Error(ErrorReply::of(why)))
    }

    /// One line of JSON, newline included.
    pub fn to_line(&self) -> String {
        line(self)
    }
}

fn line<T: Serialize>(value: &T) -> String {
    // Serializing these types cannot fail: string keys, no non-finite floats reach JSON
    // (scores are rounded finite numbers); an empty object keeps the line parseable anyway.
    let mut out = serde_json::to_string(value).unwrap_or_else(|_| "{}".to_string());
    out.push('\n');
    out
}

/// Just the version fields, read before the rest so a newer client's unknown call still gets a
/// clear version answer instead of a parse error.
#[derive(Deserialize)]
struct Envelope {
    protocol: u32,
    ambry: String,
}

/// Reads a request line: an error reply for anything malformed or from another version.
pub fn parse_request(line: &str) -> Result<Request, ErrorReply> {
    let malformed = |e: serde_json::Error| {
        ErrorReply::of(&Refusal::MalformedRequest {
            why: format!("not a compose service request: {e}"),
        })
    };
    let envelope: Envelope = serde_json::from_str(line).map_err(malformed)?;
    if envelope.protocol != PROTOCOL_VERSION || envelope.ambry != AMBRY_VERSION {
        return Err(ErrorReply::of(&Refusal::VersionMismatch {
            ours: PROTOCOL_VERSION,
            our_version: AMBRY_VERSION,
            theirs: envelope.protocol,
            their_version: envelope.ambry,
        }));
    }
    serde_json::from_str(line).map_err(malformed)
}

/// Reads a response line on the client: anything but a same-version reply is an error.
pub fn parse_response(line: &str) -> Result<Reply, ServiceError> {
    let envelope: Envelope = serde_json::from_str(line).map_err(|e| ServiceError::Protocol {
        reason: e.to_string(),
    })?;
    if envelope.protocol != PROTOCOL_VERSION || envelope.ambry != AMBRY_VERSION {
        return Err(ServiceError::VersionMismatch {
            ours: PROTOCOL_VERSION,
            our_version: AMBRY_VERSION.to_string(),
            theirs: envelope.protocol,
            their_version: envelope.ambry,
        });
    }
    let response: Response = serde_json::from_str(line).map_err(|e| ServiceError::Protocol {
        reason: e.to_string(),
    })?;
    match response.reply {
        Reply::Error(e) => Err(ServiceError::Refused {
            code: e.code,
            message: e.message,
        }),
        reply => Ok(reply),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compose_call() -> Call {
        Call::Compose(ComposeCall {
            home: "/h".into(),
            models_dir: "/h/models".into(),
            cwd: "/repo".into(),
            request: ambry_compose::compose::hook::ContextRequest {
                event: ambry_compose::compose::hook::ContextEvent::SessionStart,
                prompt: "deploy \"canary\"\nnow".into(),
                source: Some("compact".into()),
                session_id: Some("s-1".into()),
                agent: Some("claude".into()),
                record: true,
                transcript: None,
            },
            now: "2026-01-01T00:00:00Z".parse().unwrap(),
        })
    }

    #[test]
    fn a_request_survives_its_own_line() {
        let request = Request::new(compose_call());
        let line = request.to_line();
        assert!(
            line.ends_with('\n') && line.matches('\n').count() == 1,
            "one line: {line:?}"
        );
        assert_eq!(parse_request(line.trim_end()).unwrap(), request);
        assert_eq!(
            parse_request(&Request::new(Call::Status).to_line())
                .unwrap()
                .call,
            Call::Status
        );
    }

    #[test]
    fn malformed_requests_get_an_error_reply() {
        for bad in [
            "",
            "not json",
            "{\"protocol\": 1}",
            "[1,2]",
            "{\"protocol\":\"x\",\"ambry\":\"0\"}",
        ] {
            let e = parse_request(bad).unwrap_err();
            assert_eq!(e.code, "malformed_request", "{bad:?}");
        }
        let unknown_call = format!(
            r#"{{"protocol":{PROTOCOL_VERSION},"ambry":"{AMBRY_VERSION}","call":{{"reboot":{{}}}}}}"#
        );
        assert_eq!(
            parse_request(&unknown_call).unwrap_err().code,
            "malformed_request"
        );
        let missing_field = format!(
            r#"{{"protocol":{PROTOCOL_VERSION},"ambry":"{AMBRY_VERSION}","call":{{"compose":{{"query":"x"}}}}}}"#
        );
        let e = parse_request(&missing_field).unwrap_err();
        assert!(e.message.contains("missing field"), "{}", e.message);
    }

    #[test]
    fn another_version_is_told_which_one_this_is() {
        let other_protocol = format!(
            r#"{{"protocol":{},"ambry":"{AMBRY_VERSION}","call":"status"}}"#,
            PROTOCOL_VERSION + 1
        );
        let e = parse_request(&other_protocol).unwrap_err();
        assert_eq!(e.code, "version_mismatch");
        assert!(e.message.contains(AMBRY_VERSION), "{}", e.message);
        // A newer build with a call this one does not know still gets the version answer.
        let other_build = format!(
            r#"{{"protocol":{PROTOCOL_VERSION},"ambry":"0.0.0-other","call":{{"future":1}}}}"#
        );
        assert_eq!(
            parse_request(&other_build).unwrap_err().code,
            "version_mismatch"
        );
    }

    #[test]
    fn the_client_rejects_other_versions_errors_and_garbage() {
        let ok = Response::new(Reply::Status(ServiceStatus {
            pid: 7,
            home: "/h".into(),
            models_dir: "/m".into(),
            composed: 2,
            model_loaded: None,
        }));
        assert!(matches!(parse_response(&ok.to_line()), Ok(Reply::Status(s)) if s.composed == 2));
        let mut old = ok.clone();
        old.ambry = "0.0.1-old".into();
        assert!(matches!(
            parse_response(&old.to_line()),
            Err(ServiceError::VersionMismatch { .. })
        ));
        let refused = Response::error("models_dir_mismatch", "other models");
        assert!(
            matches!(parse_response(&refused.to_line()), Err(ServiceError::Refused { code, .. }) if code == "models_dir_mismatch")
        );
        assert!(matches!(
            parse_response("{\"protocol\":1"),
            Err(ServiceError::Protocol { .. })
        ));
    }
}
