//! The stable error vocabulary shared by every core module and every front end.
//!
//! Owns: the `ErrorCode` trait (each structured error's stable machine-readable kind), the
//! `ErrorReport` shape every front end shows (`{ "code", "message", "field"? }` across IPC, in
//! `--json` errors and in MCP tool errors), the one function that turns any error chain into
//! that shape, and the few codes only a front end can produce (`FrontEndCode`).
//! Deliberately does not: define the module errors themselves; each module has its own
//! `thiserror` enum.

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

/// The code and field of the first error in `error`'s chain that has one; `failed` otherwise.
/// The message is the whole chain, each cause once (a cause whose text the outer message
/// already contains is not repeated).
pub fn report(error: &(dyn std::error::Error + 'static)) -> ErrorReport {
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

/// Every core error type, listed once: `$apply!` receives the whole list.
macro_rules! core_errors {
    ($apply:ident) => {
        $apply! {
            crate::workspace::WorkspaceError,
            crate::workspace::HomeError,
            crate::memory::StoreError,
            crate::config::ConfigError,
            crate::config_edit::ConfigEditError,
            crate::project::ProjectError,
            crate::embed::EmbedError,
            crate::sessions::SessionError,
            crate::rank::RankError,
            crate::anchors::AnchorError,
            crate::editor::EditorError,
            crate::compose_service::ServiceError,
            crate::agents::AgentError,
            crate::desktop::DesktopError,
            crate::compose::cases::CasesError,
            crate::instructions::InstructionError,
            crate::distill::DistillError,
        }
    };
}

/// The first core error type `e` is, tried in turn.
fn coded(e: &(dyn std::error::Error + 'static)) -> Option<(&'static str, Option<&'static str>)> {
    macro_rules! try_types {
        ($($ty:ty),* $(,)?) => {$(
            if let Some(known) = e.downcast_ref::<$ty>() {
                return Some((known.code(), known.field()));
            }
        )*};
    }
    core_errors!(try_types);
    None
}

/// `?` on any core error in a function that returns an `ErrorReport` (the app's commands).
macro_rules! into_report {
    ($($ty:ty),* $(,)?) => {$(
        impl From<$ty> for ErrorReport {
            fn from(e: $ty) -> Self {
                report(&e)
            }
        }
    )*};
}

core_errors!(into_report);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::StoreError;

    #[derive(Debug, thiserror::Error)]
    #[error("saving failed")]
    struct Outer(#[source] StoreError);

    #[test]
    fn the_first_coded_cause_gives_code_and_field() {
        let inner = StoreError::InvalidField {
            field: "description",
            reason: "too long".into(),
        };
        let r = report(&Outer(inner));
        assert_eq!(r.code, "invalid_field");
        assert_eq!(r.field.as_deref(), Some("description"));
        assert_eq!(r.message, "saving failed: invalid description: too long");
    }

    #[test]
    fn an_os_error_repeated_by_its_wrapper_is_said_once() {
        let io = std::io::Error::from_raw_os_error(21);
        let e = StoreError::Io {
            action: "read",
            path: "/x".into(),
            source: io,
        };
        let r = report(&e);
        assert_eq!(r.code, "io");
        assert_eq!(r.message.matches("os error 21").count(), 1, "{}", r.message);
    }

    #[test]
    fn unknown_errors_are_failed() {
        let e = std::io::Error::other("boom");
        assert_eq!(report(&e).code, "failed");
        assert_eq!(FrontEndCode::Busy.report("x").code, "busy");
    }
}
