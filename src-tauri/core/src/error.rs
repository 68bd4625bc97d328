//! The stable error vocabulary shared by every core module and every front end.
//!
//! Owns: the `ErrorCode` trait (each structured error's stable machine-readable kind), the
//! `ErrorReport` shape every front end shows (`{ "code", "message", "field"? }` across IPC, in
//! `--json` errors and in MCP tool errors), how an error chain becomes that shape, the few
//! codes only a front end can produce (`FrontEndCode`), and how much of someone's input an
//! error quotes (`quoted`: a short excerpt and its length, never a 5 MB field echoed whole).
//! Deliberately does not: define the module errors themselves (each module has its own
//! `thiserror` enum) or list them: this file imports nothing of the crate, so every module can
//! implement `ErrorCode` without an import cycle; `error_registry.rs` lists the types.

use serde::Serialize;

/// A structured error with a stable kind the UI and scripts can act on.
pub trait ErrorCode: std::error::Error {
    /// A short, stable, snake_case kind such as `invalid_name` or `not_found`.
    fn code(&self) -> &'static str;
    /// The input field the error is about, when there is one (`name`, `type`, `description`…),
    /// so a form can mark it without parsing the message.
    fn field(&self) -> Option<&'static str> {
        None
    }
}

/// Most characters of someone's input (a name, a type, a version) an error message quotes.
pub const QUOTE_MAX: usize = 64;

/// `input` as an error message quotes it: whole when it is at most [`QUOTE_MAX`] characters,
/// else its first `QUOTE_MAX` characters, an ellipsis and its length, so an oversized field
/// (an agent's 5 MB `type`) is named in the error, not sent back whole.
pub fn quoted(input: &str) -> String {
    match input.char_indices().nth(QUOTE_MAX) {
        None => input.to_string(),
        Some((end, _)) => format!("{}… ({} bytes)", &input[..end], input.len()),
    }
}

/// An error as every front end shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorReport {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

/// Codes that arise in a front end rather than in core (a task that died, a program that
/// would not start). Listed here so no front end invents its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontEndCode {
    /// A background task stopped unexpectedly (a panic): nothing was lost, try again.
    Internal,
    /// The desktop could not start a program (the editor, the file manager, a browser).
    LaunchFailed,
    /// Another run of the same job is in progress (a reindex).
    Busy,
    /// The command line or the request was not understood.
    Usage,
    /// A link the app will not hand to the browser (only web and mail links open).
    InvalidLink,
    /// The person's home directory (or `XDG_CONFIG_HOME`) is unknown.
    NoHome,
}

impl FrontEndCode {
    pub fn as_str(self) -> &'static str {
        match self {
            FrontEndCode::Internal => "internal",
            FrontEndCode::LaunchFailed => "launch_failed",
            FrontEndCode::Busy => "busy",
            FrontEndCode::Usage => "usage",
            FrontEndCode::InvalidLink => "invalid_link",
            FrontEndCode::NoHome => "no_home",
        }
    }

    pub fn report(self, message: impl Into<String>) -> ErrorReport {
        ErrorReport {
            code: self.as_str().to_string(),
            message: message.into(),
            field: None,
        }
    }
}

impl ErrorReport {
    /// A coded error as every front end shows it: its own code and field, the message of its
    /// whole chain. What [`crate::report`] gives for the same error, without the registry of
    /// every error type (so a core module can report its own errors without importing it).
    pub fn of<E: ErrorCode + 'static>(error: &E) -> Self {
        chain_report(error, &|_| None).with_code(error.code(), error.field())
    }

    fn with_code(mut self, code: &'static str, field: Option<&'static str>) -> Self {
        self.code = code.to_string();
        self.field = field.map(str::to_string);
        self
    }
}

/// What `coded` finds on the first cause that has a code: that code and field.
pub type Coded = Option<(&'static str, Option<&'static str>)>;

/// The code and field of the first error in `error`'s chain `coded` knows; `failed` otherwise.
/// The message is the whole chain, each cause once (a cause whose text the outer message
/// already contains is not repeated).
pub fn chain_report(
    error: &(dyn std::error::Error + 'static),
    coded: &dyn Fn(&(dyn std::error::Error + 'static)) -> Coded,
) -> ErrorReport {
    let mut code = None;
    let mut message = String::new();
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if code.is_none() {
            code = coded(e);
        }
        let text = e.to_string();
        if !message.contains(&text) {
            if !message.is_empty() {
                message.push_str(": ");
            }
            message.push_str(&text);
        }
        cause = e.source();
    }
    let (code, field) = code.unwrap_or(("failed", None));
    ErrorReport {
        code: code.to_string(),
        message,
        field: field.map(str::to_string),
    }
}
