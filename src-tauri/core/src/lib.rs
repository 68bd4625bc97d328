//! Ambry core: every rule about memories, retrieval, sessions and composition lives here.
//!
//! Owns: the on-disk layout and its I/O policy (atomic, locked, archived writes), ranking,
//! the session index, prompt composition, embeddings and configuration.
//! Deliberately does not: know about Tauri, clap or a terminal; read the clock or the process
//! environment deep inside logic (callers pass paths, config and `now` in); print or exit.

// Dead code is reported in every build. What only the tests, benches and fuzz targets reach
// (through the `internals` build) says so where it is declared: its re-export is
// `#[cfg(feature = "internals")]`, an item `expect(dead_code)` outside that build.

// Every module is crate-internal: a front end sees only the surface re-exported below. Builds
// with the `internals` feature (this crate's own integration tests, benches and fuzz targets,
// which exercise modules directly) see the modules too; the front ends never enable it.
macro_rules! internal {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "internals")]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    )*};
}

internal! {
    agents, anchors, compose, compose_service, config, config_edit, desktop, distill, doctor, editor,
    embed, enforce, home, import, instructions, ledger, lifecycle, memory, project, project_lookup,
    rank, render, sessions, storage, sync, usage, workspace,
}
pub mod error;
mod error_registry;
mod index_db;

// The public surface: the workspace, its data and its errors, and the few pure helpers a front
// end needs to show them (rendering, bounded input, the desktop entry, the compose service's
// client). Anything else a front end needs belongs on `Workspace`.
pub use agents::{Action, Agent, ConnectOptions, ConnectReport};
pub use anchors::{project_anchor_path, AnchorKind, InitOutcome};
pub use compose::cases::{CaseSpec, CasesReport, CASES_FILE};
pub use compose::hook::{self, ContextEvent, ContextRequest};
pub use compose::Composition;
pub use compose_service::{
    call, spawn_compose_service, Call, ComposeCall, ComposeService, RecallAnswer, RecallCall,
    Reply, Request, ServiceError, ServiceHandle, ToolCheckCall,
};
pub use config::{Config, DistillAgent, Strategy};
pub use config_edit::{settings_of, SettingView};
pub use desktop::{autostart_enabled, create_starter_config, set_autostart, TRAY_FLAG};
pub use distill::{DistillReport, Edits, Proposal, StopHandle};
pub use doctor::{overall as overall_status, Check, Status};
pub use editor::{in_terminal_if_needed, system_openers, EditorLaunch};
pub use embed::{release_idle_model_in_background, ReindexProgress, SavedWithVector, VectorStatus};
pub use enforce::{Backtest, Decision, PastCall, ToolCall, ToolVerdict};
pub use error::{quoted, Code, ErrorCode, ErrorReport, FrontEndCode, InvalidRequest};
pub use error_registry::report;
pub use home::AmbryHome;
pub use import::{ImportOutcome, ImportReport};
pub use instructions::{InstructionFile, InstructionKind};
pub use ledger::{Form, Injection, ToolCheckRecord};
pub use lifecycle::{Finding, Subject};
pub use memory::bounded_read::{
    read_named_input, read_regular, read_regular_unlinked, read_stream, ReadRefusal,
};
pub use memory::frontmatter::rfc3339;
pub use memory::validate::{escape_controls, BODY_MAX, MEMORY_FILE_MAX};
pub use memory::{
    Enforce, ForgetOutcome, LeakedSecret, Memory, MemoryChange, MemoryDraft, MemoryWatcher,
    PruneReport, Retirement, RuleAction, RuleEdit, RuleStatus, Scope, ScopeFilter, Store,
    VersionDiff,
};
pub use project::{KnownProject, Project};
pub use rank::Relevance;
pub use render::{markdown_to_safe_html, openable_link};
pub use sessions::{
    group_runs, IndexSummary, RecallHit, RecallQuery, SessionChange, SessionGroup, SessionWatcher,
    SourceKind, Transcript, VaultedFile,
};
pub use storage::{create_private_dir_all, open_private};
pub use sync::auto::SETTLE as AUTO_SYNC_SETTLE;
pub use sync::{LastError, Refused, Side, SyncConflict, SyncReport, SyncState, SyncStatus};
pub use usage::UseKind;
pub use workspace::{
    AgentStatus, AnchorOf, AnchorText, AutoSync, Coverage, ForgottenVersion, HomeError,
    IndexRequest, InstructionView, JudgedHit, LaunchEnv, MemoryRow, ModelUnavailable, ReaderRecall,
    ReindexPhase, ReindexSummary, RenamedWithVector, RuleRow, SearchHit, SearchOptions, Selection,
    SessionFolder, TeamTrust, ToolCheck, VersionRow, Workspace, WorkspaceError,
};
