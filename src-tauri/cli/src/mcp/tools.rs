//! The six tools (DESIGN §12) and their argument schemas, each a thin call into the workspace.
//!
//! Owns: the argument shapes, which project a call is about (the `cwd` argument, else the
//! client's first root, else the server's working directory), turning every refusal into a
//! tool error with the store's own message (never a protocol error, never an ended server),
//! bounding what the SDK's own errors quote (a parameter that does not deserialize is quoted by
//! serde whole: a 5 MB `scope` came back as a 5 MB error), and answering a known method whose
//! params do not parse (`tools/call` without params) with invalid params (-32602), not the
//! SDK's "method not found".
//! Deliberately does not: decide anything about memories; the workspace does.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ambry_core::Reader;
use ambry_core::Workspace;
use ambry_core::{report, ErrorReport};
use ambry_core::{Coverage, SearchOptions};
use ambry_core::{MemoryDraft, Scope, ScopeFilter};
use ambry_core::{RecallQuery, SourceKind};
use chrono::Utc;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ErrorData, Peer, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::guidance;

/// How long a client may take to answer which folders (roots) it works in.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(2);
/// The most bytes of a message the SDK made (quoting what it refused) an answer carries.
const SDK_MESSAGE_MAX: usize = 512;
/// What the SDK's message for arguments that do not deserialize starts with.
const UNDESERIALIZABLE: &str = "failed to deserialize parameters:";
/// Every request method of the protocol the SDK parses: one of these that reaches
/// `on_custom_request` had params that are missing or not its own.
const PROTOCOL_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

/// Recall and search results when the agent gives no limit, and the most it may ask for.
const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 50;

#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ScopeName {
    /// Holds across every repository (the default).
    User,
    /// Holds only in the current repository, for this person.
    Project,
    /// Shared with everyone on the current repository (in its working tree, committed by the
    /// person); only where the person trusts the repository's team memory.
    Team,
}

impl From<ScopeName> for Scope {
    fn from(s: ScopeName) -> Scope {
        match s {
            ScopeName::User => Scope::User,
            ScopeName::Project => Scope::Project,
            ScopeName::Team => Scope::Team,
        }
    }
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum ScopeChoice {
    /// The user's memories and the current project's, as an agent here sees them.
    #[default]
    All,
    User,
    Project,
    Team,
}

impl From<ScopeChoice> for ScopeFilter {
    fn from(s: ScopeChoice) -> ScopeFilter {
        match s {
            ScopeChoice::All => ScopeFilter::All,
            ScopeChoice::User => ScopeFilter::User,
            ScopeChoice::Project => ScopeFilter::Project,
            ScopeChoice::Team => ScopeFilter::Team,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReviewArgs {
    /// The repository whose memories to review with the user's (default: the client's root).
    #[serde(default)]
    pub cwd: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RenameArgs {
    /// The memory's current name.
    pub old: String,
    /// Its new name: lowercase letters, digits and hyphens, not taken.
    pub new: String,
    /// The memory's scope (default user).
    pub scope: Option<ScopeName>,
    /// The repository the call is about (default: the client's root).
    pub cwd: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SaveArgs {
    /// Lowercase letters, digits and hyphens, e.g. `testing-preferences`; an existing name is updated.
    pub name: String,
    /// user, feedback, project or reference (or a label of your own).
    #[serde(rename = "type")]
    pub kind: String,
    /// One line saying what this memory is for (shown in the memory index).
    pub description: String,
    /// The memory itself, in markdown.
    pub body: String,
    /// `user` (default) or `project`.
    #[serde(default)]
    pub scope: Option<ScopeName>,
    #[serde(default)]
    pub tags: Vec<String>,
    /// The repository directory this is about (default: the client's root, else the server's directory).
    #[serde(default)]
    pub cwd: Option<String>,
    /// A rule to propose for this memory, checked at tool calls once the person turns it on.
    #[serde(default)]
    pub enforce: Option<ProposedRule>,
    /// 2–5 short phrases saying when this memory is needed, in the words the person would use
    /// when they need it, not the memory's own ("bumping the DB pool size", "a 429 from the
    /// payments API"). Omit it to keep the phrases a saved memory has.
    #[serde(default)]
    pub when: Option<Vec<String>>,
}

/// A rule an agent proposes: stored off until the person turns it on in Ambry.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ProposedRule {
    /// The tool names the rule covers, as you call them (e.g. ["Bash"]).
    pub tool: Vec<String>,
    /// A regex over the tool input as text (for Bash, the command line), e.g. `\bnpm (i|install)\b`.
    #[serde(rename = "match")]
    pub pattern: String,
    /// `deny` (the call is refused, the memory is the reason) or `remind` (the memory is shown before the call runs).
    pub action: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What you are looking for, in words.
    pub query: String,
    #[serde(default)]
    pub scope: Option<ScopeChoice>,
    /// At most this many results (default 10, at most 50).
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cwd: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NameArgs {
    pub name: String,
    /// `user` or `project`; for memory_get, omit it to get what the agent sees (project wins).
    #[serde(default)]
    pub scope: Option<ScopeName>,
    #[serde(default)]
    pub cwd: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    #[serde(default)]
    pub scope: Option<ScopeChoice>,
    #[serde(default)]
    pub cwd: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceName {
    Claude,
    Codex,
    Ambry,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RecallArgs {
    /// Words, or FTS5 syntax ("exact phrase", OR, prefix*).
    pub query: String,
    /// At most this many results (default 10, at most 50).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only sessions of this agent.
    #[serde(default)]
    pub source: Option<SourceName>,
    /// Only sessions that ran in this directory or below it.
    #[serde(default)]
    pub project: Option<String>,
}

/// The MCP server: the workspace, and the directory to fall back on for the project.
#[derive(Clone)]
pub struct AmbryTools {
    workspace: Arc<Workspace>,
    cwd: PathBuf,
    tool_router: ToolRouter<Self>,
    /// Set by the handshake's `initialize`: a session is initialized once.
    initialized: Arc<AtomicBool>,
}

impl AmbryTools {
    pub fn new(workspace: Arc<Workspace>, cwd: PathBuf) -> Self {
        AmbryTools {
            workspace,
            cwd,
            tool_router: Self::tool_router(),
            initialized: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The directory a call is about: its `cwd` argument, else the client's first file root,
    /// else the server's working directory. Roots are deprecated by the newest protocol
    /// revision, but the agents Ambry serves negotiate earlier ones and still offer them.
    #[allow(deprecated)]
    async fn directory(&self, given: Option<&str>, peer: &Peer<RoleServer>) -> PathBuf {
        if let Some(dir) = given.filter(|d| !d.trim().is_empty()) {
            return self.cwd.join(dir);
        }
        let offers_roots = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if offers_roots {
            if let Ok(Ok(result)) = tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await {
                if let Some(path) = result
                    .roots
                    .iter()
                    .find_map(|root| root.uri.strip_prefix("file://").map(percent_decoded))
                {
                    return PathBuf::from(path);
                }
            }
        }
        self.cwd.clone()
    }

    /// Runs blocking workspace work off the protocol's threads.
    async fn blocking<T, F>(&self, work: F) -> Result<T, ErrorReport>
    where
        T: Send + 'static,
        F: FnOnce(&Workspace) -> Result<T, ErrorReport> + Send + 'static,
    {
        let ws = self.workspace.clone();
        tokio::task::spawn_blocking(move || work(&ws))
            .await
            .unwrap_or_else(|e| {
                Err(ambry_core::FrontEndCode::Internal.report(format!(
                    "the tool stopped unexpectedly ({e}); nothing was lost, try again"
                )))
            })
    }
}

/// A tool's answer: its JSON as text and as structured content, or its error as a tool error.
fn answer<T: Serialize>(result: Result<T, ErrorReport>) -> CallToolResult {
    match result.and_then(|v| serde_json::to_value(v).map_err(|e| report(&e))) {
        Ok(value) => {
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
            // Structured content must be an object; arrays travel as text only.
            if value.is_object() {
                out.structured_content = Some(value);
            }
            out
        }
        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
            "{} ({})",
            e.message, e.code
        ))]),
    }
}

/// A message the SDK made, its middle cut when it is over [`SDK_MESSAGE_MAX`] bytes: serde
/// quotes a value it refused whole, and says what it expected after it, so both ends stay.
fn bounded(message: String) -> String {
    if message.len() <= SDK_MESSAGE_MAX {
        return message;
    }
    let keep = SDK_MESSAGE_MAX / 2;
    let head_end = message.floor_char_boundary(keep);
    let tail_start = message.ceil_char_boundary(message.len() - keep);
    format!(
        "{}… ({} bytes in all) …{}",
        &message[..head_end],
        message.len(),
        &message[tail_start..]
    )
}

fn limit(asked: Option<usize>) -> Result<usize, ErrorReport> {
    match asked {
        None => Ok(DEFAULT_LIMIT),
        Some(0) => Err(ambry_core::FrontEndCode::Usage.report("limit must be at least 1")),
        Some(n) => Ok(n.min(MAX_LIMIT)),
    }
}

#[tool_router]
impl AmbryTools {
    #[tool(
        title = "Save a memory",
        description = guidance::SAVE,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn memory_save(
        &self,
        peer: Peer<RoleServer>,
        Parameters(args): Parameters<SaveArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let dir = self.directory(args.cwd.as_deref(), &peer).await;
        let scope: Scope = args.scope.unwrap_or(ScopeName::User).into();
        let draft = MemoryDraft {
            name: args.name,
            kind: args.kind,
            description: args.description,
            body: args.body,
            tags: args.tags,
        };
        let proposed = args.enforce.map(|r| ambry_core::Enforce {
            tools: r.tool,
            pattern: r.pattern,
            action: r.action,
            status: ambry_core::RuleStatus::Proposed,
        });
        Ok(answer(
            self.blocking(move |ws| {
                let place = ws.place_at(&dir);
                ws.agent_may_write(&place, scope)?;
                // An agent's rule waits for the person (DESIGN §16).
                let rule = ws.agent_rule_edit(&place, scope, &draft.name, proposed)?;
                let saved =
                    ws.save_ruled_when(&place, scope, draft, &rule, args.when.as_deref(), Utc::now())?;
                let o = &saved.outcome;
                Ok(serde_json::json!({
                    "scope": scope, "name": o.memory.name, "type": o.memory.kind, "path": o.memory.path,
                    "created": o.created, "changed": o.changed, "archived": o.archived, "vector": saved.vector,
                    "enforce": o.memory.lifecycle.enforce, "when": o.memory.lifecycle.when,
                }))
            })
            .await,
        ))
    }

    #[tool(
        title = "Search memories",
        description = guidance::SEARCH,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn memory_search(
        &self,
        peer: Peer<RoleServer>,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let dir = self.directory(args.cwd.as_deref(), &peer).await;
        Ok(answer(
            self.blocking(move |ws| {
                let options = SearchOptions { limit: Some(limit(args.limit)?), strategy: None, only_evident: false, today: Some(Utc::now().date_naive()) };
                let place = ws.place_at(&dir);
                let results = ws.search(&args.query, Coverage::Agent(&place, args.scope.unwrap_or_default().into()), &options)?;
                let hits: Vec<_> = results.hits.iter().map(|h| h.judged()).collect();
                Ok(serde_json::json!({ "hits": hits, "strategy": results.strategy, "note": results.note }))
            })
            .await,
        ))
    }

    #[tool(
        title = "Read a memory",
        description = guidance::GET,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn memory_get(
        &self,
        peer: Peer<RoleServer>,
        Parameters(args): Parameters<NameArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let dir = self.directory(args.cwd.as_deref(), &peer).await;
        Ok(answer(
            self.blocking(move |ws| {
                let place = ws.place_at(&dir);
                Ok(ws.read_memory(
                    &place,
                    args.scope.map(Into::into),
                    &args.name,
                    Reader::Agent,
                    Utc::now(),
                )?)
            })
            .await,
        ))
    }

    #[tool(
        title = "List memories",
        description = guidance::LIST,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn memory_list(
        &self,
        peer: Peer<RoleServer>,
        Parameters(args): Parameters<ListArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let dir = self.directory(args.cwd.as_deref(), &peer).await;
        Ok(answer(
            self.blocking(move |ws| {
                let memories = ws.list_with_usage(
                    &ws.place_at(&dir),
                    args.scope.unwrap_or_default().into(),
                    Utc::now(),
                )?;
                Ok(serde_json::json!({ "memories": memories }))
            })
            .await,
        ))
    }

    #[tool(
        title = "Forget a memory",
        description = guidance::FORGET,
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn memory_forget(
        &self,
        peer: Peer<RoleServer>,
        Parameters(args): Parameters<NameArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let dir = self.directory(args.cwd.as_deref(), &peer).await;
        Ok(answer(
            self.blocking(move |ws| {
                let scope = args.scope.ok_or_else(|| {
                    ambry_core::FrontEndCode::Usage
                        .report("say which memory to forget: scope is `user` or `project`")
                })?;
                Ok(ws.forget(&ws.place_at(&dir), scope.into(), &args.name, Utc::now())?)
            })
            .await,
        ))
    }

    #[tool(
        title = "Rename a memory",
        description = guidance::RENAME,
        annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn memory_rename(
        &self,
        peer: Peer<RoleServer>,
        Parameters(args): Parameters<RenameArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let dir = self.directory(args.cwd.as_deref(), &peer).await;
        Ok(answer(
            self.blocking(move |ws| {
                let place = ws.place_at(&dir);
                let scope = args.scope.unwrap_or(ScopeName::User).into();
                Ok(ws.rename_memory(&place, scope, &args.old, &args.new, Utc::now())?)
            })
            .await,
        ))
    }

    #[tool(
        title = "Review memories",
        description = guidance::REVIEW,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn memory_review(
        &self,
        peer: Peer<RoleServer>,
        Parameters(args): Parameters<ReviewArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let dir = self.directory(args.cwd.as_deref(), &peer).await;
        Ok(answer(
            self.blocking(move |ws| {
                let findings = ws.review(&ws.place_at(&dir), Utc::now())?;
                Ok(serde_json::json!({ "findings": findings }))
            })
            .await,
        ))
    }

    #[tool(
        title = "Recall past sessions",
        description = guidance::RECALL,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn session_recall(
        &self,
        Parameters(args): Parameters<RecallArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let cwd = self.cwd.clone();
        Ok(answer(
            self.blocking(move |ws| {
                let mut query = RecallQuery::new(args.query);
                query.limit = limit(args.limit)?;
                query.source = args.source.map(|s| match s {
                    SourceName::Claude => SourceKind::Claude,
                    SourceName::Codex => SourceKind::Codex,
                    SourceName::Ambry => SourceKind::Ambry,
                });
                query.cwd_prefix = args.project.map(|p| {
                    let dir = cwd.join(p);
                    dir.canonicalize().unwrap_or(dir)
                });
                let (sessions, notes) = ws.recall(&query, true, Utc::now())?;
                Ok(serde_json::json!({ "sessions": sessions, "notes": notes }))
            })
            .await,
        ))
    }
}

#[tool_handler]
impl ServerHandler for AmbryTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            // The server introduces itself by its own name, not the SDK's.
            Implementation::new("ambry", env!("CARGO_PKG_VERSION")).with_title("Ambry memory"),
        )
        .with_instructions(guidance::INSTRUCTIONS)
    }

    /// Calls the tool as the SDK's router does; what the SDK itself answers (arguments that do
    /// not deserialize, an unknown tool) quotes at most a bounded part of the request.
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        match self.tool_router.call(call).await {
            Ok(rmcp::model::CallToolResponse::Complete(mut result))
                if result.is_error == Some(true) =>
            {
                for block in &mut result.content {
                    if let ContentBlock::Text(text) = block {
                        if text.text.starts_with(UNDESERIALIZABLE) {
                            text.text = bounded(std::mem::take(&mut text.text));
                        }
                    }
                }
                Ok(rmcp::model::CallToolResponse::Complete(result))
            }
            Ok(other) => Ok(other),
            Err(mut error) => {
                error.message = bounded(error.message.into_owned()).into();
                Err(error)
            }
        }
    }

    /// A request the SDK could not parse as any protocol request. A protocol method here had
    /// params that are missing or not its own: invalid params (-32602), as JSON-RPC says; the
    /// SDK answered "method not found" (-32601) for `tools/call` without params. Anything else
    /// is an unknown method, its name quoted by an excerpt.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        let method = request.method.as_str();
        if PROTOCOL_METHODS.contains(&method) {
            let what = if request.params.is_none() {
                "needs params"
            } else {
                "has params that are not its own"
            };
            let hint = if method == "tools/call" {
                " (`{\"name\": TOOL, \"arguments\": {…}}`)"
            } else {
                ""
            };
            return Err(ErrorData::invalid_params(
                format!("`{method}` {what}{hint}"),
                None,
            ));
        }
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            format!("no method `{}`", ambry_core::quoted(method)),
            None,
        ))
    }

    /// Answers the handshake's `initialize` as the SDK does, and refuses any later one: the
    /// SDK would take a second `initialize` as the session's new protocol version, so a
    /// client sending one mid-session (say with a future version) would switch how requests
    /// already in flight are judged — a `ping` racing it could be refused as unknown.
    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        if self.initialized.swap(true, Ordering::SeqCst) {
            return Err(ErrorData::invalid_request(
                "the session is already initialized: initialize is answered once, at the start",
                None,
            ));
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_resources(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        let (ws, cwd) = (self.workspace.clone(), self.cwd.clone());
        Ok(rmcp::model::ListResourcesResult::with_all_items(
            super::resources::list(&ws, &cwd),
        ))
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: rmcp::service::RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        super::resources::read(&self.workspace, &self.cwd, &request.uri)
    }
}

/// `file://` URIs escape spaces and other bytes as `%XX`.
fn percent_decoded(path: &str) -> String {
    percent_encoding::percent_decode_str(path)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_sdk_message_keeps_both_ends_and_says_its_length() {
        let short = "failed to deserialize parameters: missing field `name`".to_string();
        assert_eq!(super::bounded(short.clone()), short);
        let huge = format!(
            "failed to deserialize parameters: unknown variant `{}é`, expected `user` or `project`",
            "x".repeat(5_000_000)
        );
        let cut = super::bounded(huge.clone());
        assert!(cut.len() <= super::SDK_MESSAGE_MAX + 40, "{cut}");
        assert!(cut.starts_with("failed to deserialize parameters: unknown variant `xxx"));
        assert!(cut.ends_with("expected `user` or `project`"), "{cut}");
        assert!(
            cut.contains(&format!("({} bytes in all)", huge.len())),
            "{cut}"
        );
    }

    #[test]
    fn file_uris_decode_escapes() {
        assert_eq!(
            super::percent_decoded("/home/p/my%20repo"),
            "/home/p/my repo"
        );
        assert_eq!(super::percent_decoded("/a/b"), "/a/b");
    }
}
