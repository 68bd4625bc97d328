//! Errors as the UI receives them: core's one error shape, `{ "code", "message", "field"? }`.
//!
//! Owns: the alias the commands return (core converts every core error into it with `?`), and
//! the front-end codes core lists (`FrontEndCode`).
//! Deliberately does not: invent codes of its own.

use ambry_core::{ErrorReport, FrontEndCode};

pub type IpcError = ErrorReport;

pub type IpcResult<T> = Result<T, IpcError>;

pub fn front_end(code: FrontEndCode, message: impl Into<String>) -> IpcError {
    code.report(message)
}
