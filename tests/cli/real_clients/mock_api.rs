//! A local mock of the two model APIs the real clients speak: Anthropic Messages
//! (`POST /v1/messages`, SSE or JSON) and OpenAI Responses (`POST /v1/responses`, SSE).
//!
//! Owns: a loopback HTTP/1.1 listener on an ephemeral port (one thread per connection, every
//! response `Connection: close`), the record of every request body a client sent (what the model
//! receives: the ground truth of these tests), and the scripted replies: each request of the
//! agent loop takes the next `Step` (a text answer or a tool call); side requests and an empty
//! script get a short text that ends the turn.
//! Deliberately does not: judge anything (the tests read `requests()`), talk to any network
//! beyond 127.0.0.1, or emulate the APIs beyond what the pinned client versions read.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{json, Value};

/// What the model answers to one request of the agent loop.
#[derive(Debug, Clone)]
pub enum Step {
    /// A text answer that ends the turn.
    Text(String),
    /// A call of a client-side tool: for Claude the full name (`mcp__ambry__memory_save`), for
    /// Codex the bare tool name with `namespace` (`mcp__ambry`) when it is an MCP tool.
    Tool {
        name: String,
        namespace: Option<String>,
        input: Value,
    },
}

impl Step {
    pub fn text(text: &str) -> Step {
        Step::Text(text.to_string())
    }

    /// An Ambry MCP tool as Claude Code names it.
    pub fn claude_tool(tool: &str, input: Value) -> Step {
        Step::Tool {
            name: format!("mcp__ambry__{tool}"),
            namespace: None,
            input,
        }
    }

    /// An Ambry MCP tool as Codex names it: the bare name inside the server's namespace.
    pub fn codex_tool(tool: &str, input: Value) -> Step {
        Step::Tool {
            name: tool.to_string(),
            namespace: Some("mcp__ambry".to_string()),
            input,
        }
    }
}

/// One request as the mock received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// The body parsed as JSON (`Value::Null` when empty or not JSON).
    pub body: Value,
}

impl Recorded {
    /// A request of the agent loop (the ones the script answers), as opposed to side requests
    /// (token counts, titles, quota probes).
    pub fn is_turn(&self) -> bool {
        match self.path.as_str() {
            "/v1/messages" => self.body["tools"].as_array().is_some_and(|t| !t.is_empty()),
            "/v1/responses" => self.method == "POST",
            _ => false,
        }
    }

    /// Every string anywhere in the body, joined: what the model reads, in order.
    pub fn all_text(&self) -> String {
        self.strings().join("\n")
    }

    /// Every string anywhere in the body, one by one.
    pub fn strings(&self) -> Vec<String> {
        let mut out = Vec::new();
        collect_strings(&self.body, &mut out);
        out
    }

    /// The names of the tools offered; Codex's namespaced MCP tools flattened to
    /// `mcp__<server>__<tool>`, so both clients compare alike.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for tool in self.body["tools"].as_array().into_iter().flatten() {
            match (tool["type"].as_str(), tool["name"].as_str()) {
                (Some("namespace"), Some(ns)) => {
                    for inner in tool["tools"].as_array().into_iter().flatten() {
                        if let Some(n) = inner["name"].as_str() {
                            names.push(format!("{ns}__{n}"));
                        }
                    }
                }
                (_, Some(n)) => names.push(n.to_string()),
                _ => {}
            }
        }
        names
    }
}

fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

#[derive(Default)]
struct State {
    requests: Vec<Recorded>,
    script: VecDeque<Step>,
}

/// The running mock; stops accepting and joins its thread when dropped.
pub struct MockApi {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl MockApi {
    pub fn start() -> MockApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let ids = Arc::new(AtomicU64::new(1));
        let acceptor = {
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (state, ids) = (state.clone(), ids.clone());
                    std::thread::spawn(move || {
                        // A client that hangs up mid-request is its own business.
                        let _ = serve(conn, &state, &ids);
                    });
                }
            })
        };
        MockApi {
            addr,
            state,
            stop,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:PORT` (Claude's `ANTHROPIC_BASE_URL`; Codex wants `…/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Replaces what the next requests of the agent loop get, in order.
    pub fn script(&self, steps: impl IntoIterator<Item = Step>) {
        self.state.lock().unwrap().script = steps.into_iter().collect();
    }

    /// Steps not yet played (a test expecting its whole script used checks this is 0).
    pub fn unplayed(&self) -> usize {
        self.state.lock().unwrap().script.len()
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    /// The requests of the agent loop only.
    pub fn turns(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.is_turn())
            .collect()
    }

    /// Forgets what was recorded so far (the script is kept).
    pub fn clear(&self) {
        self.state.lock().unwrap().requests.clear();
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the acceptor so it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(handle) = self.acceptor.take() {
            let _ = handle.join();
        }
    }
}

struct HttpRequest {
    method: String,
    path: String,
    body: Vec<u8>,
}

fn read_request(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<HttpRequest>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default();
    let path = target.split('?').next().unwrap_or_default().to_string();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "content-length" {
                length = value.parse().unwrap_or(0);
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Some(HttpRequest { method, path, body }))
}

fn serve(conn: TcpStream, state: &Mutex<State>, ids: &AtomicU64) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut out = conn;
    let Some(request) = read_request(&mut reader)? else {
        return Ok(());
    };
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let recorded = Recorded {
        method: request.method.clone(),
        path: request.path.clone(),
        body: body.clone(),
    };
    let step = {
        let mut state = state.lock().unwrap();
        let step = if recorded.is_turn() {
            state.script.pop_front()
        } else {
            None
        };
        state.requests.push(recorded);
        step.unwrap_or_else(|| Step::text("Done."))
    };
    let id = ids.fetch_add(1, Ordering::SeqCst);
    let streaming = body["stream"].as_bool().unwrap_or(false);
    match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/v1/messages/count_tokens") => {
            write_json(&mut out, 200, &json!({"input_tokens": 100}))?
        }
        ("POST", "/v1/messages") if streaming => {
            write_sse(&mut out, &anthropic_events(&step, id, &body))?
        }
        ("POST", "/v1/messages") => {
            write_json(&mut out, 200, &anthropic_message(&step, id, &body))?
        }
        ("POST", "/v1/responses") => write_sse(&mut out, &responses_events(&step, id))?,
        ("GET", "/v1/models") => write_json(&mut out, 200, &json!({"object": "list", "data": []}))?,
        _ => write_json(
            &mut out,
            404,
            &json!({"type": "error", "error": {"type": "not_found_error", "message": "not mocked"}}),
        )?,
    }
    out.flush()?;
    let _ = out.shutdown(Shutdown::Both);
    Ok(())
}

fn write_json(out: &mut TcpStream, status: u16, body: &Value) -> std::io::Result<()> {
    let text = body.to_string();
    write!(
        out,
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        if status == 200 { "OK" } else { "Not Found" },
        text.len()
    )
}

fn write_sse(out: &mut TcpStream, events: &[(String, Value)]) -> std::io::Result<()> {
    let mut text = String::new();
    for (name, data) in events {
        text.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    }
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    )
}

fn usage() -> Value {
    json!({"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

fn anthropic_block(step: &Step, id: u64) -> Value {
    match step {
        Step::Text(text) => json!({"type": "text", "text": text}),
        Step::Tool { name, input, .. } => {
            json!({"type": "tool_use", "id": format!("toolu_{id:04}"), "name": name, "input": input})
        }
    }
}

fn stop_reason(step: &Step) -> &'static str {
    match step {
        Step::Text(_) => "end_turn",
        Step::Tool { .. } => "tool_use",
    }
}

fn anthropic_message(step: &Step, id: u64, request: &Value) -> Value {
    json!({
        "id": format!("msg_{id:04}"), "type": "message", "role": "assistant",
        "model": request["model"].as_str().unwrap_or("mock"),
        "content": [anthropic_block(step, id)],
        "stop_reason": stop_reason(step), "stop_sequence": null, "usage": usage(),
    })
}

fn anthropic_events(step: &Step, id: u64, request: &Value) -> Vec<(String, Value)> {
    let mut message = anthropic_message(step, id, request);
    message["content"] = json!([]);
    message["stop_reason"] = Value::Null;
    let mut events = vec![(
        "message_start".to_string(),
        json!({"type": "message_start", "message": message}),
    )];
    let (start, delta) = match step {
        Step::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
        Step::Tool { name, input, .. } => (
            json!({"type": "tool_use", "id": format!("toolu_{id:04}"), "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
        ),
    };
    events.push((
        "content_block_start".into(),
        json!({"type": "content_block_start", "index": 0, "content_block": start}),
    ));
    events.push((
        "content_block_delta".into(),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
    ));
    events.push((
        "content_block_stop".into(),
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push((
        "message_delta".into(),
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(step), "stop_sequence": null}, "usage": {"output_tokens": 10}}),
    ));
    events.push(("message_stop".into(), json!({"type": "message_stop"})));
    events
}

fn responses_events(step: &Step, id: u64) -> Vec<(String, Value)> {
    let response_id = format!("resp_{id:04}");
    let (in_progress, done) = match step {
        Step::Text(text) => (
            json!({"type": "message", "id": format!("msg_{id:04}"), "role": "assistant", "status": "in_progress", "content": []}),
            json!({"type": "message", "id": format!("msg_{id:04}"), "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": text, "annotations": []}]}),
        ),
        Step::Tool {
            name,
            namespace,
            input,
        } => {
            let mut item = json!({"type": "function_call", "id": format!("fc_{id:04}"), "call_id": format!("call_{id:04}"),
                                  "name": name, "arguments": input.to_string(), "status": "completed"});
            if let Some(ns) = namespace {
                item["namespace"] = json!(ns);
            }
            (item.clone(), item)
        }
    };
    let mut events = vec![
        (
            "response.created".to_string(),
            json!({"type": "response.created", "response": {"id": response_id, "object": "response", "status": "in_progress", "output": []}}),
        ),
        (
            "response.output_item.added".to_string(),
            json!({"type": "response.output_item.added", "output_index": 0, "item": in_progress}),
        ),
    ];
    if let Step::Text(text) = step {
        events.push((
            "response.output_text.delta".into(),
            json!({"type": "response.output_text.delta", "item_id": format!("msg_{id:04}"), "output_index": 0, "content_index": 0, "delta": text}),
        ));
    }
    events.push((
        "response.output_item.done".into(),
        json!({"type": "response.output_item.done", "output_index": 0, "item": done}),
    ));
    events.push((
        "response.completed".into(),
        json!({"type": "response.completed", "response": {"id": response_id, "object": "response", "status": "completed", "output": [done],
               "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                         "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}}}),
    ));
    events
}
