//! `ambry mcp`'s request handling, as a hostile client drives it: after the handshake Claude
//! Code makes, any bytes (JSON-RPC lines or not) go to the same `serve` the command runs, on a
//! fresh copy of a seeded home. Whatever arrives:
//! - nothing panics (the fuzz harness aborts on any panic, a tool's worker thread included) and
//!   nothing ends the server: a ping sent after the input is still answered, and the session
//!   ends only because the client hung up;
//! - every line the server writes is a JSON-RPC 2.0 message, and a tool call's answer is a
//!   tool result or a tool error carrying the store's message (arguments of the wrong shape:
//!   the SDK's message); a protocol error is only for a call the protocol itself refuses
//!   (an unknown tool, parameters that are not a call);
//! - the store loses nothing: every seeded version of every memory is still current or in its
//!   scope's archive, every version a call reported archiving is there, MEMORY.md agrees with
//!   each scope's files, and nothing is written outside the home.
#![no_main]

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ambry_store::memory::{MemoryDraft, Scope, Store};
use ambry_store::project::{self, Project};
use ambry_core::{AmbryHome, Workspace};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What Claude Code sends first (without roots: nobody here would answer the server's request
/// for them, and the server would wait for the answer on every call).
const HANDSHAKE: &str = concat!(
    r#"{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.0.14"}},"jsonrpc":"2.0","id":0}"#,
    "\n",
    r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#,
    "\n",
);
/// Sent after the input: its answer proves the server outlived everything before it.
const LAST_PING_ID: &str = "ambry-fuzz-last-ping";

/// The sandbox every input starts from: a git repository as the project, and a home whose
/// memories (user and project scope, some with archived versions), anchors and one Ambry
/// session were written through the store.
struct Sandbox {
    root: PathBuf,
    repo: PathBuf,
    template: PathBuf,
    project: Project,
    /// The bytes of every memory version the template holds, per scope directory (relative to
    /// the home): each must survive every input, as the current file or in the archive.
    seeded: Vec<(PathBuf, Vec<u8>)>,
}

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        // One sandbox per process; those of processes that are gone (fork mode starts many)
        // are removed here, since a fuzz process never runs its own clean-up.
        let prefix = "ambry-fuzz-mcp-";
        for entry in std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix(prefix) {
                if !Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        let root = std::env::temp_dir().join(format!("{prefix}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let repo = root.join("repo");
        std::fs::create_dir_all(repo.join(".ambry")).unwrap();
        let status = std::process::Command::new("git").args(["init", "-q"]).arg(&repo).status().expect("git runs");
        assert!(status.success(), "git init failed");
        std::fs::write(repo.join(".ambry/AMBRY.md"), "# Project context\nBuild with `cargo build --locked`.\n").unwrap();
        let project = project::resolve(&repo).unwrap();

        let template = root.join("template");
        let home = AmbryHome::new(&template);
        let store = Store::new(home.clone(), Some(project.clone()));
        let now = "2026-06-01T10:00:00Z".parse().unwrap();
        let later = "2026-06-02T10:00:00Z".parse().unwrap();
        let draft = |name: &str, kind: &str, description: &str, body: &str| MemoryDraft {
            name: name.into(),
            kind: kind.into(),
            description: description.into(),
            body: body.into(),
            tags: vec!["seed".into()],
        };
        store.save(Scope::User, draft("pnpm", "feedback", "Use pnpm, never npm", "Always `pnpm install`.\n"), now).unwrap();
        store.save(Scope::User, draft("pnpm", "feedback", "Use pnpm, never npm", "Always `pnpm install --frozen-lockfile`.\n"), later).unwrap();
        store.save(Scope::User, draft("db-notes", "reference", "Where the schema lives", "See `db/schema.sql`.\n"), now).unwrap();
        store.save(Scope::Project, draft("build-trap", "project", "The build needs the lockfile", "Run `cargo build --locked`.\n"), now).unwrap();
        std::fs::write(ambry_store::anchors::user_anchor_path(&home), "# About me\nI prefer small commits.\n").unwrap();
        let sessions = home.sessions_dir();
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(
            sessions.join("s1.jsonl"),
            format!(
                "{}\n{}\n{}\n",
                serde_json::json!({ "session": { "id": "s1", "title": "flaky tests", "cwd": repo } }),
                r#"{"ts":"2026-06-01T09:00:00Z","role":"user","text":"why is the retry test flaky?"}"#,
                r#"{"ts":"2026-06-01T09:01:00Z","role":"assistant","text":"the retry test races the clock; pin the time"}"#,
            ),
        )
        .unwrap();

        let mut seeded = Vec::new();
        for scope in [Scope::User, Scope::Project] {
            let dir = store.dir(scope).unwrap();
            let relative = dir.strip_prefix(&template).unwrap().to_path_buf();
            for path in memory_versions(&dir) {
                seeded.push((relative.clone(), std::fs::read(path).unwrap()));
            }
        }
        assert_eq!(seeded.len(), 4, "the template holds three memories and one archived version");
        Sandbox { root, repo, template, project, seeded }
    })
}

/// Every memory file of a scope directory: the current ones and the archived versions.
fn memory_versions(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for folder in [dir.to_path_buf(), dir.join(".archive")] {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") && name != "MEMORY.md" && entry.file_type().is_ok_and(|t| t.is_file()) {
                found.push(entry.path());
            }
        }
    }
    found
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A JSON-RPC id as a map key (ids may be numbers or strings).
fn id_key(id: &Value) -> String {
    id.to_string()
}

/// The tool calls among the lines, by id; ids used more than once are left out.
fn tool_calls(data: &[u8]) -> HashMap<String, String> {
    let mut calls = HashMap::new();
    let mut seen = HashSet::new();
    for line in data.split(|b| *b == b'\n') {
        let messages = match serde_json::from_slice::<Value>(line.strip_suffix(b"\r").unwrap_or(line)) {
            Ok(Value::Object(message)) => vec![message],
            Ok(Value::Array(batch)) => batch.into_iter().filter_map(|m| match m {
                Value::Object(message) => Some(message),
                _ => None,
            }).collect(),
            _ => continue,
        };
        for message in messages {
            let Some(id) = message.get("id") else { continue };
            let key = id_key(id);
            // An id used twice, by any two requests (an `initialize` and a later call, say),
            // cannot tell whose answer is whose: neither is judged as a tool's.
            if !seen.insert(key.clone()) {
                calls.remove(&key);
                continue;
            }
            if message.get("method").and_then(Value::as_str) == Some("tools/call") {
                let tool = message.get("params").and_then(|p| p.get("name")).and_then(Value::as_str).unwrap_or_default();
                calls.insert(key, tool.to_string());
            }
        }
    }
    calls
}

/// What the server wrote, one JSON-RPC message per line.
fn replies(output: &[u8]) -> Vec<serde_json::Map<String, Value>> {
    let text = std::str::from_utf8(output).expect("the server writes UTF-8");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(m)) if m.get("jsonrpc").and_then(Value::as_str) == Some("2.0") => m,
            _ => panic!("the server wrote a line that is not a JSON-RPC 2.0 message: {line}"),
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let sandbox = sandbox();
    let run = sandbox.root.join("run");
    let _ = std::fs::remove_dir_all(&run);
    copy_tree(&sandbox.template, &run);
    let home = AmbryHome::new(&run);
    let workspace: Arc<Workspace> = Workspace::with_models(home.clone(), sandbox.root.join("no-models"));

    let mut input = HANDSHAKE.as_bytes().to_vec();
    input.extend_from_slice(data);
    input.extend_from_slice(format!("\n{{\"jsonrpc\":\"2.0\",\"id\":\"{LAST_PING_ID}\",\"method\":\"ping\"}}\n").as_bytes());

    // A runtime per input: dropping it waits for every tool's blocking work, so the checks
    // below see the store as the calls left it.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (output, ended) = runtime.block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_in, server_out) = tokio::io::split(server);
        let (mut from_server, mut to_server) = tokio::io::split(client);
        let write = async move {
            // The server may stop reading (say, the handshake was refused); that is its answer.
            let _ = to_server.write_all(&input).await;
            let _ = to_server.shutdown().await;
        };
        let read = async move {
            let mut output = Vec::new();
            from_server.read_to_end(&mut output).await.expect("the server's output reads");
            output
        };
        let (ended, (), output) = tokio::join!(ambry_cli::mcp::serve(workspace, sandbox.repo.clone(), server_in, server_out), write, read);
        (output, ended)
    });
    drop(runtime);

    match ended {
        Ok(ambry_cli::mcp::QuitReason::Closed) => {}
        other => panic!("the session ended other than by the client hanging up: {other:?}"),
    }
    let messages = replies(&output);
    let untouchable = String::from_utf8_lossy(data).contains(LAST_PING_ID);
    // Answered with a result: nothing the input sent changes how the session judges a ping (a
    // second `initialize`, say with a future protocol version, is refused, not adopted).
    let last_ping_answered = messages.iter().any(|m| {
        m.get("id").and_then(Value::as_str) == Some(LAST_PING_ID) && m.contains_key("result")
    });
    assert!(untouchable || last_ping_answered, "the server stopped answering before the input ended");

    // The handshake's ids count as used: an input call that reuses one (the `initialize`'s 0)
    // cannot be told from the handshake's answer.
    let calls = tool_calls(&[HANDSHAKE.as_bytes(), data].concat());
    let mut reported_archived: Vec<PathBuf> = Vec::new();
    let mut saved: Vec<(PathBuf, String)> = Vec::new();
    for message in &messages {
        let Some(tool) = message.get("id").and_then(|id| calls.get(&id_key(id))) else { continue };
        if let Some(error) = message.get("error") {
            let code = error.get("code").and_then(Value::as_i64).unwrap_or_default();
            assert!(
                code == -32602 || code == -32601,
                "a call to {tool} got a protocol error other than a refused call: {error}"
            );
            continue;
        }
        let result = message.get("result").expect("a response has a result or an error");
        let text: String = result
            .get("content")
            .and_then(Value::as_array)
            .expect("a tool result has content")
            .iter()
            .filter_map(|c| c.get("text").and_then(Value::as_str))
            .collect();
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            // Arguments of the wrong shape are the SDK's refusal (a tool error too, so the agent
            // can correct itself); every other refusal is the store's message and its code.
            let shape = text.starts_with("failed to deserialize parameters:");
            assert!(shape || (text.ends_with(')') && text.len() > 3), "a tool error carries the store's message and code: {text:?}");
            continue;
        }
        let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool} answered text that is not JSON ({e}): {text}"));
        if let Some(archived) = answer.get("archived").and_then(Value::as_str) {
            reported_archived.push(archived.into());
        }
        if tool == "memory_save" {
            let path = answer.get("path").and_then(Value::as_str).expect("a save says where it wrote");
            let name = answer.get("name").and_then(Value::as_str).expect("a save names the memory");
            saved.push((path.into(), name.to_string()));
        }
    }

    for (relative, bytes) in &sandbox.seeded {
        let kept = memory_versions(&run.join(relative)).iter().any(|p| std::fs::read(p).is_ok_and(|b| &b == bytes));
        assert!(kept, "a seeded version of a memory in {} is neither current nor archived any more", relative.display());
    }
    for path in &reported_archived {
        assert!(path.starts_with(&run) && path.is_file(), "{} was reported archived but is not there", path.display());
    }
    for (path, name) in &saved {
        assert!(path.starts_with(&run), "a save wrote outside the home: {}", path.display());
        let dir = path.parent().expect("a memory file has a folder");
        let archived = memory_versions(dir).iter().any(|p| {
            p.file_name().and_then(|f| f.to_str()).is_some_and(|f| f.strip_prefix(name.as_str()).is_some_and(|rest| rest.starts_with('.')))
        });
        assert!(path.is_file() || archived, "{name} was saved but is neither current nor archived");
    }
    let store = Store::new(home, Some(sandbox.project.clone()));
    for scope in [Scope::User, Scope::Project] {
        let drift = store.index_drift(scope).expect("the scope reads");
        assert!(drift.is_empty(), "MEMORY.md of the {scope} scope disagrees with its files: {drift:?}");
    }
    let mut outside: Vec<String> = std::fs::read_dir(&sandbox.root).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    outside.retain(|n| !["repo", "template", "run"].contains(&n.as_str()));
    assert!(outside.is_empty(), "written outside the home: {outside:?}");
});
