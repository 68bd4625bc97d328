//! `ambry mcp` driven by the official SDK's client over stdio, as Claude Code or Codex would.
// Roots are deprecated by the newest protocol revision; the agents Ambry serves still use them.
#![allow(deprecated)]

use std::path::{Path, PathBuf};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ListRootsResult, Root,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{json, Value};

use crate::support::Sandbox;

/// A client that works in `root` and says so when the server asks for its roots.
#[derive(Clone)]
pub(crate) struct Agent {
    root: Option<PathBuf>,
}

impl ClientHandler for Agent {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.root.is_some() {
            ClientCapabilities::builder().enable_roots().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("ambry-test-agent", "1.0"))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let roots = self
            .root
            .iter()
            .map(|r| Root::new(format!("file://{}", r.display())))
            .collect();
        Ok(ListRootsResult::new(roots))
    }
}

pub(crate) async fn connect(
    sandbox: &Sandbox,
    cwd: &Path,
    root: Option<PathBuf>,
) -> RunningService<RoleClient, Agent> {
    let bin = assert_cmd::cargo::cargo_bin("ambry");
    let home = sandbox.home.path().to_path_buf();
    let cwd = cwd.to_path_buf();
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|cmd| {
        cmd.arg("--home")
            .arg(&home)
            .arg("mcp")
            .current_dir(&cwd)
            .env_remove("AMBRY_HOME")
            .env("HOME", &home)
            .env("AMBRY_MODELS_DIR", home.join("no-models"));
    }))
    .expect("start ambry mcp");
    Agent { root }
        .serve(transport)
        .await
        .expect("MCP handshake")
}

pub(crate) async fn call(
    client: &RunningService<RoleClient, Agent>,
    tool: &'static str,
    args: Value,
) -> CallToolResult {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
        .await
        .expect("the server answers")
}

pub(crate) fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn ok_json(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "tool error: {}", text(result));
    serde_json::from_str(&text(result)).expect("tools answer JSON")
}

pub(crate) fn git_repo(dir: &Path) {
    let status = std::process::Command::new("git")
        .arg("init")
        .arg("-q")
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn six_tools_are_listed_with_schemas_and_descriptions_that_teach() {
    let s = Sandbox::new();
    let client = connect(&s, s.cwd.path(), None).await;
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "memory_forget",
            "memory_get",
            "memory_list",
            "memory_rename",
            "memory_review",
            "memory_save",
            "memory_search",
            "session_recall"
        ]
    );
    let save = tools.iter().find(|t| t.name == "memory_save").unwrap();
    let description = save.description.as_deref().unwrap_or_default();
    assert!(
        description.contains("Never save")
            && description.contains("secrets")
            && description.contains("Search first"),
        "{description}"
    );
    let schema = serde_json::to_value(&*save.input_schema).unwrap();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for field in ["name", "type", "description", "body"] {
        assert!(
            required.contains(&field),
            "{field} must be required: {schema}"
        );
    }
    assert!(schema["properties"]["scope"].is_object(), "{schema}");
    // Titles and the spec's hints: clients run read-only tools without asking (codex exec).
    for tool in &tools {
        let hints = tool.annotations.clone().unwrap_or_default();
        let read_only = [
            "memory_search",
            "memory_get",
            "memory_list",
            "memory_review",
            "session_recall",
        ]
        .contains(&tool.name.as_ref());
        assert_eq!(hints.read_only_hint, Some(read_only), "{}", tool.name);
        assert_eq!(
            hints.destructive_hint,
            (tool.name == "memory_forget")
                .then_some(true)
                .or(if read_only { None } else { Some(false) }),
            "{}",
            tool.name
        );
        assert!(
            tool.title.as_deref().is_some_and(|t| !t.is_empty()),
            "{}",
            tool.name
        );
    }
    let info = client.peer_info().unwrap();
    let server = info.server_info.clone().expect("the server names itself");
    assert_eq!(server.name, "ambry");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    assert!(
        info.instructions
            .as_deref()
            .unwrap_or_default()
            .contains("user scope")
            || info
                .instructions
                .as_deref()
                .unwrap_or_default()
                .contains("User scope")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn save_search_get_list_forget_follow_the_store_rules() {
    let s = Sandbox::new();
    let client = connect(&s, s.cwd.path(), None).await;
    let saved = ok_json(
        &call(
            &client,
            "memory_save",
            json!({
                "name": "testing-preferences", "type": "feedback",
                "description": "How the person wants tests written",
                "body": "Integration tests hit a real database; never mock it."
            }),
        )
        .await,
    );
    assert_eq!(saved["created"], true);
    assert_eq!(saved["scope"], "user");
    let file = s.home.path().join("memory/testing-preferences.md");
    assert!(file.is_file());

    // Overwrite: the prior version is archived.
    let updated = ok_json(&call(&client, "memory_save", json!({
        "name": "testing-preferences", "type": "feedback",
        "description": "How the person wants tests written",
        "body": "Integration tests hit a real Postgres; never mock it. Unit tests may fake the clock."
    })).await);
    assert_eq!(updated["created"], false);
    assert!(
        updated["archived"].as_str().unwrap().contains(".archive"),
        "{updated}"
    );

    let found = ok_json(
        &call(
            &client,
            "memory_search",
            json!({ "query": "should I mock the database in tests?" }),
        )
        .await,
    );
    assert_eq!(found["hits"][0]["name"], "testing-preferences", "{found}");

    let got = ok_json(
        &call(
            &client,
            "memory_get",
            json!({ "name": "testing-preferences" }),
        )
        .await,
    );
    assert!(got["body"].as_str().unwrap().contains("real Postgres"));

    let listed = ok_json(&call(&client, "memory_list", json!({})).await);
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1);
    // One row per concept: the CLI's `memory list --json` lists it in the very same shape.
    let cli = s
        .ambry()
        .args(["memory", "list", "--json"])
        .output()
        .unwrap();
    assert!(cli.status.success(), "{cli:?}");
    let cli_rows: Value = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(
        cli_rows, listed["memories"],
        "the CLI and MCP list one row shape"
    );

    let forgotten = ok_json(
        &call(
            &client,
            "memory_forget",
            json!({ "name": "testing-preferences", "scope": "user" }),
        )
        .await,
    );
    assert!(!file.exists());
    let archived = s.home.path().join("memory/.archive");
    assert_eq!(
        std::fs::read_dir(&archived).unwrap().count(),
        2,
        "one archived copy per overwrite and forget: {forgotten}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn refusals_are_tool_errors_and_the_server_stays_up() {
    let s = Sandbox::new();
    let client = connect(&s, s.cwd.path(), None).await;
    let secret = call(
        &client,
        "memory_save",
        json!({
            "name": "aws", "type": "reference", "description": "keys",
            "body": "the deploy token is ghp_4f8Kq2Zr9LmN0pQ7sT1vW3xY5aB6cD8eF0gHj2"
        }),
    )
    .await;
    assert_eq!(secret.is_error, Some(true));
    assert!(text(&secret).contains("secret"), "{}", text(&secret));

    let bad_name = call(
        &client,
        "memory_save",
        json!({ "name": "../etc/passwd", "type": "user", "description": "x", "body": "x" }),
    )
    .await;
    assert_eq!(bad_name.is_error, Some(true));
    assert!(
        text(&bad_name).contains("invalid name"),
        "{}",
        text(&bad_name)
    );

    let missing = call(&client, "memory_get", json!({ "name": "nope" })).await;
    assert_eq!(missing.is_error, Some(true));

    let no_scope = call(&client, "memory_forget", json!({ "name": "nope" })).await;
    assert_eq!(no_scope.is_error, Some(true));

    // Arguments that do not fit the schema: an error, not a dead server.
    let Value::Object(map) = json!({ "query": 42 }) else {
        unreachable!()
    };
    let refused = |r: Result<CallToolResult, _>| r.map_or(true, |r| r.is_error == Some(true));
    assert!(refused(
        client
            .call_tool(CallToolRequestParams::new("memory_search").with_arguments(map))
            .await
    ));
    assert!(refused(
        client
            .call_tool(CallToolRequestParams::new("no_such_tool"))
            .await
    ));

    // Still alive and writing.
    let saved = ok_json(
        &call(
            &client,
            "memory_save",
            json!({ "name": "still-here", "type": "user", "description": "d", "body": "b" }),
        )
        .await,
    );
    assert_eq!(saved["created"], true);
    assert!(!s.home.path().join("memory/aws.md").exists());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_project_comes_from_cwd_then_the_clients_root_then_the_servers_directory() {
    let s = Sandbox::new();
    let repo = s.cwd.path().join("repo");
    let other = s.cwd.path().join("other");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    git_repo(&repo);
    git_repo(&other);

    // The client's root wins over the server's own directory.
    let client = connect(&s, &other, Some(repo.clone())).await;
    let saved = ok_json(&call(&client, "memory_save", json!({
        "name": "build-trap", "type": "project", "scope": "project",
        "description": "The build needs protoc", "body": "Install protoc before cargo build."
    })).await);
    let path = saved["path"].as_str().unwrap().to_string();
    // An explicit cwd wins over the root.
    let elsewhere = ok_json(&call(&client, "memory_save", json!({
        "name": "other-fact", "type": "project", "scope": "project", "cwd": other.display().to_string(),
        "description": "d", "body": "b"
    })).await);
    client.cancel().await.unwrap();
    assert_ne!(
        Path::new(&path).parent(),
        Path::new(elsewhere["path"].as_str().unwrap()).parent()
    );

    // A client without roots: the server's directory decides.
    let client = connect(&s, &repo, None).await;
    let listed = ok_json(&call(&client, "memory_list", json!({ "scope": "project" })).await);
    let names: Vec<&str> = listed["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["build-trap"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn recall_finds_past_sessions() {
    let s = Sandbox::new();
    let sessions = s.home.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join("s1.jsonl"),
        "{\"session\": {\"id\": \"s1\", \"title\": \"Redis cache\", \"cwd\": \"/work/app\"}}\n\
         {\"ts\": \"2026-11-01T10:00:00Z\", \"role\": \"user\", \"text\": \"should we drop the redis cache?\"}\n\
         {\"ts\": \"2026-11-01T10:01:00Z\", \"role\": \"assistant\", \"text\": \"We decided to drop the Redis cache because invalidation was wrong.\"}\n",
    )
    .unwrap();
    let client = connect(&s, s.cwd.path(), None).await;
    let found = ok_json(
        &call(
            &client,
            "session_recall",
            json!({ "query": "why drop redis cache", "source": "ambry" }),
        )
        .await,
    );
    let sessions = found["sessions"].as_array().unwrap();
    assert!(!sessions.is_empty(), "{found}");
    assert_eq!(sessions[0]["session_id"], "s1");
    let zero = call(
        &client,
        "session_recall",
        json!({ "query": "redis", "limit": 0 }),
    )
    .await;
    assert_eq!(zero.is_error, Some(true));
    client.cancel().await.unwrap();
}

/// What `session_recall` hands an agent: transcript secrets masked, and a pasted document as
/// the query cut to its first words and answered (a 10 MB query once never answered).
#[tokio::test]
async fn recall_masks_transcript_secrets_and_bounds_a_huge_query() {
    let s = Sandbox::new();
    let sessions = s.home.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join("s1.jsonl"),
        "{\"session\": {\"id\": \"s1\", \"cwd\": \"/work/app\"}}\n\
         {\"ts\": \"2026-11-01T10:00:00Z\", \"role\": \"user\", \"text\": \"deploy the walrus bucket with AKIAZ3MXQ7V2LPRT4K9B\"}\n\
         {\"ts\": \"2026-11-01T10:01:00Z\", \"role\": \"assistant\", \"text\": \"pushed the walrus fix with ghp_4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R\"}\n",
    )
    .unwrap();
    let client = connect(&s, s.cwd.path(), None).await;
    let found = ok_json(&call(&client, "session_recall", json!({ "query": "walrus" })).await);
    let shown = found.to_string();
    assert_eq!(found["sessions"].as_array().unwrap().len(), 1, "{found}");
    for secret in [
        "AKIAZ3MXQ7V2LPRT4K9B",
        "4f8Kq2ZrL9mXw3Tn7Yb1Vc6Hd0Js5Pa2Ge8R",
    ] {
        assert!(
            !shown.contains(secret),
            "{secret} reached the agent: {shown}"
        );
    }
    assert!(shown.contains("[secret masked: "), "{shown}");

    let huge: String = std::iter::once("walrus ".to_string())
        .chain((0..1_500_000).map(|i| format!("w{i} ")))
        .collect();
    assert!(huge.len() > 10 << 20);
    let found = ok_json(&call(&client, "session_recall", json!({ "query": huge })).await);
    assert_eq!(found["sessions"].as_array().unwrap().len(), 1, "{found}");
    let notes = found["notes"].to_string();
    assert!(
        notes.contains("cut to its first 32 distinct word(s)"),
        "{notes}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn indexes_and_anchors_are_resources() {
    let s = Sandbox::new();
    std::fs::write(
        s.home.path().join("USER.md"),
        "# User preferences\n\nTabs, not spaces.\n",
    )
    .unwrap();
    let client = connect(&s, s.cwd.path(), None).await;
    ok_json(&call(&client, "memory_save", json!({ "name": "editor", "type": "user", "description": "Uses helix", "body": "helix" })).await);
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert!(
        uris.contains(&"ambry://memory/user/MEMORY.md")
            && uris.contains(&"ambry://anchors/USER.md"),
        "{uris:?}"
    );
    let read = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "ambry://anchors/USER.md",
        ))
        .await
        .unwrap();
    let body = serde_json::to_string(&read).unwrap();
    assert!(body.contains("Tabs, not spaces"), "{body}");
    assert!(client
        .read_resource(rmcp::model::ReadResourceRequestParams::new("ambry://nope"))
        .await
        .is_err());
    client.cancel().await.unwrap();
}

/// Every MCP session the fuzz target starts from and every input it ever found failing
/// (`fuzz/seeds/mcp_requests/`, `fuzz/findings/mcp_requests-*`), sent raw to the real server
/// after Claude Code's handshake: every line the server writes is JSON-RPC, and a ping sent
/// after the input is still answered (nothing the client sent ended the server).
#[test]
fn the_fuzz_targets_seeds_and_findings_replay_against_the_real_server() {
    let fuzz = crate::support::manifest_dir().join("../../fuzz");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(fuzz.join("seeds/mcp_requests"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    inputs.extend(
        std::fs::read_dir(fuzz.join("findings"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("mcp_requests-"))
            }),
    );
    assert!(inputs.len() >= 5, "the seed sessions are there: {inputs:?}");
    let handshake = concat!(
        r#"{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.0.14"}},"jsonrpc":"2.0","id":0}"#,
        "\n",
        r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#,
        "\n",
    );
    for input in inputs {
        let s = Sandbox::new();
        let mut stdin = handshake.as_bytes().to_vec();
        stdin.extend(std::fs::read(&input).unwrap());
        stdin.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}\n");
        let out = s
            .ambry()
            .arg("mcp")
            .env("AMBRY_MODELS_DIR", s.home.path().join("no-models"))
            .write_stdin(stdin)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let replies: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {l}", input.display()))
            })
            .collect();
        assert!(
            replies.iter().all(|r| r["jsonrpc"] == "2.0"),
            "{}: {replies:?}",
            input.display()
        );
        assert!(
            replies
                .iter()
                .any(|r| r["id"] == "last" && r.get("result").is_some()),
            "{}: the ping after the input went unanswered: {replies:?}",
            input.display()
        );
    }
}

/// `ambry mcp` for the sandbox, its stdin and stdout piped for a test to speak JSON-RPC on.
fn mcp_on_pipes(s: &Sandbox) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("ambry"))
        .env_remove("AMBRY_HOME")
        .env("AMBRY_SERVICE_AUTOSTART", "0")
        .arg("--home")
        .arg(s.home.path())
        .arg("--cwd")
        .arg(s.cwd.path())
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// A line that is not JSON gets JSON-RPC's parse error (id null), and the session goes on: the
/// next request is answered.
#[test]
fn an_unparseable_line_is_answered_with_a_parse_error_and_the_session_goes_on() {
    use std::io::{BufRead, BufReader, Write};
    let s = Sandbox::new();
    let mut child = mcp_on_pipes(&s);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(b"{this is not json\n").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["error"]["code"], -32700, "{line}");
    assert_eq!(answer["id"], Value::Null, "{line}");
    stdin
        .write_all(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string()
            .as_bytes(),
        )
        .unwrap();
    stdin.write_all(b"\n").unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["id"], 1, "{line}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "ambry", "{line}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// `initialize` is answered once: a second one mid-session (here with a future protocol
/// version) is refused as an invalid request, and the session keeps the version it agreed, so
/// a `ping` is still answered (the SDK alone would switch to the future version, under which
/// `ping` is unknown).
#[test]
fn a_second_initialize_is_refused_and_the_session_keeps_its_version() {
    use std::io::{BufRead, BufReader, Write};
    let s = Sandbox::new();
    let mut child = mcp_on_pipes(&s);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |request: Value| -> Value {
        stdin.write_all(format!("{request}\n").as_bytes()).unwrap();
        if request.get("id").is_none() {
            return Value::Null;
        }
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    let init = |id: u32, version: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
    };
    let first = ask(init(1, "2025-06-18"));
    assert_eq!(first["result"]["protocolVersion"], "2025-06-18", "{first}");
    ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let second = ask(init(2, "3025-06-18"));
    assert_eq!(second["id"], 2, "{second}");
    assert_eq!(second["error"]["code"], -32600, "{second}");
    assert!(
        second["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already initialized")),
        "{second}"
    );
    let ping = ask(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    assert_eq!(ping["id"], 3, "{ping}");
    assert!(ping.get("result").is_some(), "{ping}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// Over stdio, through the real binary: an oversized field is quoted in the error by an excerpt
/// and its length (a 5 MB `type` came back as a 5 MB error), whether the store refuses it or
/// the SDK cannot deserialize it; and `tools/call` without params is invalid params (-32602),
/// not "method not found" (-32601).
#[test]
fn errors_quote_an_excerpt_of_oversized_input_and_a_call_without_params_is_invalid_params() {
    use std::io::{BufRead, BufReader, Write};
    let s = Sandbox::new();
    let mut child = mcp_on_pipes(&s);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |request: Value| -> (usize, Value) {
        stdin.write_all(format!("{request}\n").as_bytes()).unwrap();
        if request.get("id").is_none() {
            return (0, Value::Null);
        }
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let answer = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:.300}"));
        (line.len(), answer)
    };
    ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}),
    );
    ask(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let (_, no_params) = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}));
    assert_eq!(no_params["id"], 2, "{no_params}");
    assert_eq!(no_params["error"]["code"], -32602, "{no_params}");

    let huge = "x".repeat(5 << 20);
    let save = |id: u32, field: &str| {
        let mut arguments =
            json!({"name": "probe", "type": "user", "description": "d", "body": "b"});
        arguments[field] = json!(huge);
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "memory_save", "arguments": arguments}})
    };
    let length = format!("{} bytes", huge.len());
    // The store's refusal (type), and the SDK's (scope is not one of its values).
    for (id, field) in [(3, "type"), (4, "scope")] {
        let (size, answer) = ask(save(id, field));
        assert!(size < 4096, "{field}: a {size}-byte answer");
        assert_eq!(answer["result"]["isError"], true, "{answer}");
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        // The store names the field's length; the SDK's message, its own.
        assert!(text.contains(" bytes"), "{field}: {text}");
    }
    let (size, read) = ask(
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/read",
        "params": {"uri": huge}}),
    );
    assert!(size < 4096, "resources/read: a {size}-byte answer");
    assert!(
        read["error"]["message"].as_str().unwrap().contains(&length),
        "{read}"
    );
    let (size, unknown) = ask(json!({"jsonrpc": "2.0", "id": 6, "method": huge}));
    assert!(size < 4096, "an unknown method: a {size}-byte answer");
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert!(!s.home.path().join("memory/probe.md").exists());
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
