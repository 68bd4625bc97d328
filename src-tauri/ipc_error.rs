//! Errors as the UI receives them: `{ "code": "<stable kind>", "message": "<human text>" }`.
//!
//! Owns: converting every core error into that shape through `engram_core::ErrorCode`.
//! Deliberately does not: invent kinds of its own beyond `internal` (a task that died).

use engram_core::ErrorCode;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct IpcError {
    pub code: String,
    pub message: String,
}

impl IpcError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        IpcError { code: code.to_string(), message: message.into() }
    }
}

macro_rules! from_core_error {
    ($($ty:ty),* $(,)?) => {$(
        impl From<$ty> for IpcError {
            fn from(e: $ty) -> Self {
                IpcError::new(e.code(), e.to_string())
            }
        }
    )*};
}

from_core_error!(
    engram_core::memory::StoreError,
    engram_core::project::ProjectError,
    engram_core::config::ConfigError,
    engram_core::embed::EmbedError,
    engram_core::anchors::AnchorError,
    engram_core::rank::RankError,
    engram_core::editor::EditorError,
    engram_core::sessions::SessionError,
    engram_core::desktop::DesktopError,
);

pub type IpcResult<T> = Result<T, IpcError>;
