// The arguments of every command the shell registers, generated from their Rust
// signatures and types (src-tauri/ipc_contract.rs; `AMBRY_WRITE_IPC=1 cargo test -p
// ambry-app ipc_contract` rewrites it). `tsc` checks every `call(…)` in ui/ against it.
// Do not edit: change the Rust side.

export type CaseRef = { scope: Scope, index: number, prompt: string, };
export type CaseSpec = { prompt: string, 
/**
 * Must be injected (a case may have none when it only says what must not be).
 */
expect: Array<string>, 
/**
 * Must not be injected for this prompt.
 */
reject?: Array<string>, within?: number | null, };
export type Edits = { name: string | null, type: string | null, description: string | null, body: string | null, };
export type Enforce = { 
/**
 * The tool names as the agent reports them to `PreToolUse` (`Bash`, `Edit`, `Write`…).
 */
tools: Array<string>, 
/**
 * A regex over the tool input as text (a shell call's command line).
 */
match: string, 
/**
 * `deny` or `remind` (as written; `compile` refuses anything else).
 */
action: string, status: RuleStatus, };
export type ForgottenVersion = { name: string, version: string, };
export type InstructionKind = "user_claude" | "user_agents" | "project_claude" | "project_dot_claude" | "project_local_claude" | "project_agents";
export type Location = { scope: Scope, project: string | null, };
export type MemoryDraft = { name: string, type: string, description: string, body: string, tags: Array<string>, };
export type MemoryRef = { name: string, scope: Scope, project: string | null, };
export type Replaced = { scope: Scope, name: string, version: string, };
export type ReviewRef = { scope: Scope, name: string, };
export type RuleEdit = { "op": "keep" } | { "op": "set", "rule": Enforce } | { "op": "remove" };
export type RuleStatus = "on" | "off" | "proposed";
export type Scope = "user" | "team" | "project";
export type SearchIn = { "kind": "everything" } | { "kind": "user_only" } | { "kind": "project", "slug": string };
export type SessionSource = "claude" | "codex" | "ambry";
export type TextPair = { a: string, b: string, };

export interface CommandArgs {
  list_memories: { location: Location };
  get_memory: { memory: MemoryRef };
  save_memory: { location: Location; original?: string | null; draft: MemoryDraft; rule?: RuleEdit | null; when?: Array<string> | null };
  test_rule: { rule: Enforce; tool: string; sample: string };
  backtest_rule: { memory: MemoryRef; rule?: Enforce | null };
  forget_memory: { memory: MemoryRef };
  forget_memories: { location: Location; names: Array<string> };
  restore_memories: { location: Location; versions: Array<ForgottenVersion> };
  rename_memory: { memory: MemoryRef; new: string };
  render_markdown: { text: string };
  open_in_editor: { memory: MemoryRef };
  reveal_in_folder: { memory: MemoryRef };
  open_link: { url: string };
  search_memories: { query: string; within: SearchIn; seq: number; limit?: number | null };
  compose_preview: { prompt: string; project?: string | null; session?: string | null };
  ledger_sessions: { limit?: number | null };
  memory_tests: { project?: string | null };
  save_memory_test: { project?: string | null; prompt: string; expect: Array<string>; reject?: Array<string> | null; within?: number | null };
  edit_memory_test: { project?: string | null; case: CaseRef; spec: CaseSpec };
  delete_memory_test: { project?: string | null; case: CaseRef };
  list_versions: { location: Location; name?: string | null };
  version_diff: { location: Location; name: string; version: string };
  restore_version: { location: Location; name: string; version: string };
  prune_archive: { location: Location; dryRun: boolean; asOf?: string | null };
  leaked_secrets: { location: Location };
  purge_version: { location: Location; name: string; version: string };
  get_anchor: { project?: string | null };
  init_anchor: { project?: string | null };
  save_anchor: { project?: string | null; text: string };
  instruction_files: { project?: string | null };
  get_instruction: { project?: string | null; kind: InstructionKind };
  save_instruction: { project?: string | null; kind: InstructionKind; text: string; base?: string | null };
  open_instruction_in_editor: { project?: string | null; kind: InstructionKind };
  list_projects: Record<string, never>;
  trust_team: { project: string; trusted: boolean };
  add_project: Record<string, never>;
  get_settings: Record<string, never>;
  first_paint_done: Record<string, never>;
  get_autostart: Record<string, never>;
  set_autostart: { enabled: boolean };
  open_config: Record<string, never>;
  set_setting: { section: string; key: string; value?: unknown | null };
  list_settings: Record<string, never>;
  agent_connections: Record<string, never>;
  change_agent_connection: { agent: string; connect: boolean; dryRun: boolean; trust?: boolean | null };
  start_reindex: Record<string, never>;
  reindex_running: Record<string, never>;
  review_findings: { project?: string | null };
  sync_status: Record<string, never>;
  sync_now: Record<string, never>;
  sync_keep: { id: string };
  sync_use_other: { id: string };
  review_keep: { project?: string | null; memory: ReviewRef };
  review_when: { project?: string | null; memory: ReviewRef; phrases: Array<string> };
  review_rule: { project?: string | null; memory: ReviewRef; on: boolean };
  review_set_rule: { project?: string | null; memory: ReviewRef; rule: Enforce };
  review_team_seen: { project?: string | null; name: string };
  review_supersede: { project?: string | null; memory: ReviewRef; by: string };
  review_merge: { project?: string | null; into: ReviewRef; from: ReviewRef; body: string; description?: string | null };
  review_ask: { project?: string | null; with?: string | null; dryRun: boolean; run?: string | null };
  review_merge_draft: { project?: string | null; into: ReviewRef; from: ReviewRef };
  review_undo: { project?: string | null; undo: Array<Replaced> };
  compare_texts: { pairs: Array<TextPair> };
  sessions_overview: Record<string, never>;
  recall_sessions: { query: string; source?: SessionSource | null; project?: string | null; folder?: string | null; limit?: number | null; waitForModel?: boolean | null; byWords?: boolean | null };
  list_sessions: { source?: SessionSource | null; limit?: number | null };
  session_transcript: { sessionId: string };
  session_injections: { sessionId: string };
  session_tool_checks: { sessionId: string };
  save_passage: { location: Location; sessionId: string; draft: MemoryDraft };
  prune_session: { sessionId: string };
  distill_session: { session: string; with?: string | null; dryRun: boolean; run?: string | null };
  distill_project: { project: string; since?: string | null; with?: string | null; dryRun: boolean; run?: string | null };
  distill_annotate: { project?: string | null; with?: string | null; dryRun: boolean; run?: string | null };
  agent_run_stop: { run?: string | null };
  review_proposals: { project?: string | null };
  accept_proposal: { project?: string | null; id: string; edits?: Edits | null };
  reject_proposal: { id: string };
  "plugin:clipboard-manager|write_text": { text: string };
}
