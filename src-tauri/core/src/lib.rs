//! Ambry core: the one façade every front end calls — the workspace — over the layers below it
//! (store, rank, sessions, compose, sync, lifecycle; DESIGN §1), and the compose service.
//!
//! Owns: the workspace (home, config, model slot, caches, change notifications and every
//! operation), the compose service, settings edits, the desktop entry, the external editor,
//! `import claude`, and the registry that gives every error of every layer its stable code.
//! Deliberately does not: know about Tauri, clap or a terminal; read the clock or the process
//! environment deep inside logic (callers pass paths, config and `now` in); print or exit.
//! Front ends depend on this crate only: the layers' own types reach them re-exported below.

// Every module is crate-internal: a front end, a test, a bench or a fuzz target sees only the
// surface re-exported below (the layers' own tests reach the layers directly).
mod compose_service;
mod config_edit;
mod desktop;
mod editor;
mod error_registry;
mod import;
mod workspace;

// The public surface: the workspace, its data and its errors, and the few pure helpers a front
// end needs to show them (rendering, bounded input, the desktop entry, the compose service's
// client). Anything else a front end needs belongs on `Workspace`.
pub use ambry_compose::agents::{Action, Agent, ConnectOptions, ConnectReport};
pub use ambry_compose::compose::cases::{CaseSpec, CasesReport, CASES_FILE};
pub use ambry_compose::compose::hook::{self, ContextEvent, ContextRequest};
pub use ambry_compose::compose::Composition;
pub use ambry_compose::enforce::{Backtest, Decision, PastCall, ToolCall, ToolVerdict};
pub use ambry_compose::instructions::{InstructionFile, InstructionKind};
pub use ambry_compose::ledger::{Form, Injection, LedgerSession, ToolCheckRecord};
pub use ambry_compose::usage::UseKind;
pub use ambry_lifecycle::annotate::AnnotateReport;
pub use ambry_lifecycle::ask::{AgentVerdict, AskReport, PairVerdict};
pub use ambry_lifecycle::distill::{DistillReport, Edits, Proposal, StopHandle};
pub use ambry_lifecycle::lifecycle::sentences::{compare as compare_texts, Comparison, MergeDraft};
pub use ambry_lifecycle::lifecycle::{Acted, Finding, MergeText, Replaced, Subject};
pub use ambry_rank::embed::{
    release_idle_model_in_background, ReindexProgress, SavedWithVector, VectorStatus,
};
pub use ambry_rank::rank::Relevance;
pub use ambry_sessions::sessions::{
    group_runs, IndexSummary, RecallHit, RecallQuery, SessionChange, SessionGroup, SessionWatcher,
    SourceKind, Transcript, VaultedFile,
};
pub use ambry_store::anchors::{project_anchor_path, AnchorKind, InitOutcome};
pub use ambry_store::config::{Config, DistillAgent, Strategy};
pub use ambry_store::doctor::{overall as overall_status, Check, Status};
pub use ambry_store::error::{quoted, Code, ErrorCode, ErrorReport, FrontEndCode, InvalidRequest};
pub use ambry_store::home::AmbryHome;
pub use ambry_store::memory::bounded_read::{
    read_named_input, read_regular, read_regular_unlinked, read_stream, ReadRefusal,
};
pub use ambry_store::memory::frontmatter::rfc3339;
pub use ambry_store::memory::validate::{escape_controls, BODY_MAX, MEMORY_FILE_MAX};
pub use ambry_store::memory::{
    Enforce, ForgetOutcome, LeakedSecret, Memory, MemoryChange, MemoryDraft, MemoryWatcher,
    PruneReport, Retirement, RuleAction, RuleEdit, RuleStatus, Scope, ScopeFilter, VersionDiff,
};
pub use ambry_store::project::{KnownProject, Project};
pub use ambry_store::render::{markdown_to_safe_html, openable_link};
pub use ambry_store::storage::{create_private_dir_all, open_private};
pub use ambry_sync::sync::auto::SETTLE as AUTO_SYNC_SETTLE;
pub use ambry_sync::sync::{
    LastError, Refused, Side, SyncConflict, SyncReport, SyncState, SyncStatus,
};
pub use compose_service::{
    call, spawn_compose_service, Call, ComposeCall, ComposeService, RecallAnswer, RecallCall,
    Reply, Request, ServiceError, ServiceHandle, ServiceStatus, ToolCheckCall,
};
// The service's line protocol, for a client of its own (and the fuzz target, which is one).
pub use compose_service::protocol::{parse_request, parse_response};
pub use config_edit::{settings_of, SettingView};
pub use desktop::{autostart_enabled, create_starter_config, set_autostart, TRAY_FLAG};
pub use editor::{in_terminal_if_needed, system_openers, EditorLaunch};
pub use error_registry::report;
pub use import::{ImportOutcome, ImportReport};
pub use workspace::{
    AgentStatus, AnchorOf, AnchorText, AutoSync, Coverage, ForgottenVersion, HomeError,
    IndexRequest, InstructionView, JudgedHit, LaunchEnv, MemoryRow, ModelUnavailable, Place,
    Reader, ReaderRecall, ReindexPhase, ReindexSummary, RenamedWithVector, RuleRow, SearchHit,
    SearchOptions, Selection, SessionFolder, TeamTrust, ToolCheck, VersionRow, Workspace,
    WorkspaceError,
};
