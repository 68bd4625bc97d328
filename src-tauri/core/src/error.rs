//! The stable error vocabulary shared by every core module.
//!
//! Owns: the `ErrorCode` trait, which gives each structured error a stable machine-readable kind
//! (`{ "code", "message" }` across IPC and in CLI JSON errors).
//! Deliberately does not: define the errors themselves; each module has its own `thiserror` enum.

/// A structured error with a stable kind the UI and scripts can act on.
pub trait ErrorCode: std::error::Error {
    /// A short, stable, snake_case kind such as `invalid_name` or `not_found`.
    fn code(&self) -> &'static str;
}
