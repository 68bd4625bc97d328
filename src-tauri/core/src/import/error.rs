//! What an import can fail with as a whole (one file that cannot be imported is a skipped item
//! of the report, not an error).
//!
//! Owns: `ImportError` and its stable code.
//! Deliberately does not: describe skipped files; `ImportOutcome::Skipped` says why each was.

use std::path::{Path, PathBuf};

use ambry_store::error::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl ImportError {
    pub(crate) fn read(path: &Path, source: std::io::Error) -> Self {
        ImportError::Read {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl ErrorCode for ImportError {
    fn code(&self) -> ambry_store::error::Code {
        match self {
            ImportError::Read { .. } => ambry_store::error::Code::Io,
        }
    }
}
