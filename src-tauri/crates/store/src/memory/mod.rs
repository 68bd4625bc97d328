//! The memory store (DESIGN §2–3): memory files, their rules, and the only code that writes them.
//!
//! Owns: the shared vocabulary of memories (`Scope`, `Memory`, `MemoryFile`) used by the
//! ranker, the composer, the app and the CLI, and the store with its rules.
//! Deliberately does not: rank, embed or render; those modules consume what the store reads.

pub mod archive;
pub mod bounded_read;
pub mod diff;
mod error;
pub mod frontmatter;
pub mod index;
pub mod leaks;
mod model;
pub mod naming;
mod rename;
pub mod rule;
mod scalar;
mod scope_files;
mod scope_move;
mod scope_write;
pub mod secrets;
mod store;
mod synced;
pub mod team;
pub mod validate;
mod versions;
pub mod watch;
pub mod when;

/// The file of a scope's context cases (`ambry compose --test`) beside its memories: not a
/// memory, but synced and shown with them.
pub const CASES_FILE: &str = "tests.toml";

pub use archive::ArchivedVersion;
pub use archive::PrunePolicy;
pub use diff::{line_diff, LineDiff};
pub use diff::{version_against_current, VersionDiff};
pub use error::{NotAMemory, StoreError};
pub use leaks::{leaked_secrets, LeakedSecret};
pub use model::{Lifecycle, Reviewed};
pub use model::{Memory, MemoryDraft, MemoryFile, Retirement, Retiring, Scope, ScopeFilter};
pub use rename::Renamed;
pub use rename::{EarlierHistory, Relinked};
pub use rule::{Enforce, Rule, RuleAction, RuleEdit, RuleError, RuleStatus};
pub use scope_files::read_memory_file;
pub use scope_write::SaveOutcome;
pub use store::{ForgetOutcome, Store};
pub use synced::{check_synced_text, SyncedFile, SyncedOutcome};
pub use versions::PruneReport;
pub use watch::{MemoryChange, MemoryWatcher, WatchError};
