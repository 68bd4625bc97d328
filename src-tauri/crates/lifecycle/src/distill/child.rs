//! The edge of distill: running the person's own agent CLI headless for one call, and reading
//! its answer out of what that client prints.
//!
//! Owns: the command lines (Claude Code 2.1.197: `claude -p --output-format json
//! --json-schema S --no-session-persistence --tools "" --strict-mcp-config` with all hooks
//! and auto-memory disabled by `--settings`; Codex 0.169.0: `codex exec --ephemeral --output-schema F
//! --output-last-message F --sandbox read-only --disable hooks`), the `AMBRY_DISTILL=1`
//! marker every Ambry hook honours by printing nothing, the prompt on stdin (a transcript
//! chunk can exceed one argument's limit), a private temp directory as the child's working
//! directory, the child's process group (killed whole by its id however a call ends: an answer,
//! a failure, the deadline, the output cap, or a front end's `StopHandle::stop`), the deadline,
//! and reading what it prints through pipes, stopped at `OUTPUT_MAX` while it runs.
//! Deliberately does not: build the prompt or judge the answer (`prompt`, `proposal`), or
//! install a signal handler (a front end calls `StopHandle::stop` from its own).

use std::io::{Read, Write as _};
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::error::{quoted, DistillError};
use ambry_store::config::{DistillAgent, DistillConfig};

/// The environment marker of a distill child: `ambry compose --hook` prints nothing under it.
pub const CHILD_MARKER: &str = "AMBRY_DISTILL";

/// Most bytes read of what a child prints on stdout, and on stderr (an answer is at most
/// 64 KiB; Claude Code prints it twice, as text and as structured output, with metadata around
/// it). A child printing more is stopped at once: nothing it prints touches the disk.
const OUTPUT_MAX: u64 = 512 * 1024;

/// One call of the agent.
pub struct AgentCall<'a> {
    pub agent: DistillAgent,
    /// The command as configured (`claude`, or a path, possibly with leading arguments).
    pub command: &'a str,
    pub prompt: &'a str,
    pub schema: &'a Value,
    pub timeout: Duration,
    /// What the call is for, as its errors name it: `session ID` for distill.
    pub about: &'a str,
    /// Arguments before the client's own (Codex: the person's MCP servers switched off).
    pub extra_args: &'a [String],
}

/// The one call the review's ask and annotate each make, to the agent as `config` has it (its
/// command, its timeout, its budget).
pub struct OneCall<'a> {
    pub config: &'a DistillConfig,
    pub agent: DistillAgent,
    /// Size the prompt and show it, send nothing.
    pub dry_run: bool,
    /// Arguments before the client's own (see `codex_servers_off`).
    pub extra_args: Vec<String>,
}

/// What a [`OneCall`] made: its prompt's size, and the answer, or on a dry run the prompt.
pub struct Called {
    pub prompt_bytes: usize,
    pub estimated_tokens: u64,
    /// The prompt, shown instead of sent (a dry run).
    pub shown: Option<String>,
    /// The agent's answer (not on a dry run).
    pub answer: Option<String>,
}

impl OneCall<'_> {
    /// Whether a prompt of `bytes` fits the call's budget; `first`: nothing is in it yet, and
    /// one item always goes alone when it fits the token budget, however long.
    pub fn fits(&self, bytes: usize, first: bool) -> bool {
        self.config.max_calls > 0
            && (first || bytes <= self.config.chunk_bytes)
            && super::prompt::estimate_tokens(bytes) <= self.config.max_tokens
    }

    /// Sizes `prompt`, then shows it (a dry run) or sends it with `schema` for the answer;
    /// `about` is what the agent's errors name.
    pub fn make(
        &self,
        runner: &dyn AgentRunner,
        about: &str,
        prompt: String,
        schema: &Value,
    ) -> Result<Called, DistillError> {
        let mut called = Called {
            prompt_bytes: prompt.len(),
            estimated_tokens: super::prompt::estimate_tokens(prompt.len()),
            shown: None,
            answer: None,
        };
        if self.dry_run {
            called.shown = Some(prompt);
            return Ok(called);
        }
        let command = match self.agent {
            DistillAgent::Claude => &self.config.claude_command,
            DistillAgent::Codex => &self.config.codex_command,
        };
        called.answer = Some(runner.call(&AgentCall {
            agent: self.agent,
            command,
            prompt: &prompt,
            schema,
            timeout: Duration::from_secs(self.config.timeout_secs),
            about,
            extra_args: &self.extra_args,
        })?);
        Ok(called)
    }
}

/// Runs one call and returns the answer's text. A fake stands in for it in tests of the run.
pub trait AgentRunner {
    fn call(&self, call: &AgentCall<'_>) -> Result<String, DistillError>;
}

/// The real thing: a child process, in a process group of its own that `stop` can kill.
#[derive(Clone, Default)]
pub struct ChildRunner {
    pub stop: StopHandle,
}

impl AgentRunner for ChildRunner {
    fn call(&self, call: &AgentCall<'_>) -> Result<String, DistillError> {
        run_child(call, &self.stop)
    }
}

/// The program a configured command runs (its first word), if it parses.
pub fn program_of(command: &str) -> Option<String> {
    shlex::split(command)?.into_iter().find(|w| !w.is_empty())
}

pub fn config_key(agent: DistillAgent) -> &'static str {
    match agent {
        DistillAgent::Claude => "claude_command",
        DistillAgent::Codex => "codex_command",
    }
}

/// The arguments after the configured command, for `agent`; `dir` holds the schema and answer
/// files Codex needs.
pub fn agent_args(agent: DistillAgent, schema: &Value, dir: &Path) -> Vec<String> {
    match agent {
        DistillAgent::Claude => vec![
            "-p".into(),
            "--output-format".into(),
            "json".into(),
            "--json-schema".into(),
            schema.to_string(),
            // Not in the person's `--resume` list, no tools, no MCP servers, no hooks.
            "--no-session-persistence".into(),
            "--tools".into(),
            String::new(),
            "--strict-mcp-config".into(),
            // No hooks; no auto-memory folder for the child's working directory under the
            // person's `projects/` (Claude Code creates one per directory it starts in).
            "--settings".into(),
            r#"{"disableAllHooks":true,"autoMemoryEnabled":false}"#.into(),
        ],
        DistillAgent::Codex => vec![
            "exec".into(),
            // No rollout file: not in the person's session list.
            "--ephemeral".into(),
            "--skip-git-repo-check".into(),
            "--sandbox".into(),
            "read-only".into(),
            "--disable".into(),
            "hooks".into(),
            "--color".into(),
            "never".into(),
            "--output-schema".into(),
            dir.join("schema.json").display().to_string(),
            "--output-last-message".into(),
            dir.join("answer.txt").display().to_string(),
            "-".into(),
        ],
    }
}

/// `-c mcp_servers.<name>.enabled=false` for every MCP server in the person's Codex
/// `config.toml` text: the child gets no tools that write (Ambry's `memory_save` would bypass
/// the review). Codex has no flag for "no MCP servers", and naming a server it does not have is
/// a config error, so each configured one is named.
pub fn codex_servers_off(config_text: &str) -> Vec<String> {
    let Ok(doc) = config_text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let Some(servers) = doc.get("mcp_servers").and_then(|s| s.as_table()) else {
        return Vec::new();
    };
    servers
        .keys()
        .flat_map(|name| {
            let key = if name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                name.clone()
            } else {
                format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
            };
            ["-c".to_string(), format!("mcp_servers.{key}.enabled=false")]
        })
        .collect()
}

/// The process groups of the children running now, and whether the run was told to stop.
///
/// Core installs no signal handler (it has no process-global side effects): a front end that
/// wants its children gone when it is itself told to stop (Ctrl-C, SIGTERM, a closed terminal's
/// SIGHUP) calls [`StopHandle::stop`] from its own handler. Each child runs in a process group
/// of its own (a terminal's Ctrl-C does not reach it), so without this it would outlive `ambry`.
#[derive(Clone, Default)]
pub struct StopHandle(Arc<Mutex<Groups>>);

#[derive(Default)]
struct Groups {
    stopped: bool,
    live: Vec<i32>,
}

impl StopHandle {
    /// Kills the process group of every child running now and of every child started after:
    /// the call running ends with `DistillError::Stopped`, and so does any later one.
    pub fn stop(&self) {
        let mut groups = self.lock();
        groups.stopped = true;
        for &pgid in &groups.live {
            kill_group(pgid);
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.lock().stopped
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Groups> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a child's group; a group started after `stop` is killed at once.
    fn enter(&self, pgid: i32) -> Group<'_> {
        let mut groups = self.lock();
        groups.live.push(pgid);
        if groups.stopped {
            kill_group(pgid);
        }
        Group { pgid, stop: self }
    }
}

/// One child's process group, killed whole when the call ends, however it ends (an answer, a
/// failure, the deadline, the output cap, a stop): the client and whatever it started.
struct Group<'a> {
    pgid: i32,
    stop: &'a StopHandle,
}

impl Drop for Group<'_> {
    fn drop(&mut self) {
        let mut groups = self.stop.lock();
        groups.live.retain(|&g| g != self.pgid);
        kill_group(self.pgid);
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals exactly that process group; a group already
    // gone is ESRCH, ignored.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// What the threads around a running child report.
enum Event {
    Exited(std::io::Result<std::process::ExitStatus>),
    /// All a stream printed, up to its end.
    Printed(Stream, Vec<u8>),
    /// A stream printed more than `OUTPUT_MAX`: no more of it was read. Its pipe comes along,
    /// still open, to be closed only once the group is dead: closed at once, a writer would
    /// get EPIPE and the child could go on to other work before it is killed.
    Overflowed(Stream, Box<dyn Read + Send>),
}

#[derive(Clone, Copy, PartialEq)]
enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// Reads `from` to its end on a thread of its own, at most `OUTPUT_MAX` bytes: a child that
/// prints without end is stopped at the cap, not written to disk until the deadline.
fn read_capped(mut from: impl Read + Send + 'static, stream: Stream, tx: Sender<Event>) {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) if bytes.len() + n > OUTPUT_MAX as usize => {
                    let _ = tx.send(Event::Overflowed(stream, Box::new(from)));
                    return;
                }
                Ok(n) => bytes.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(Event::Printed(stream, bytes));
    });
}

fn run_child(call: &AgentCall<'_>, stop: &StopHandle) -> Result<String, DistillError> {
    let agent = call.agent.as_str().to_string();
    let missing = |reason: String| DistillError::AgentMissing {
        program: call.command.to_string(),
        key: config_key(call.agent),
        reason,
    };
    let stopped = || DistillError::Stopped {
        agent: call.agent.as_str().to_string(),
        session: call.about.to_string(),
    };
    if stop.is_stopped() {
        return Err(stopped());
    }
    let words = shlex::split(call.command)
        .filter(|w| !w.is_empty())
        .ok_or_else(|| missing("the command does not parse".into()))?;
    let dir = tempfile::Builder::new()
        .prefix("ambry-distill-")
        .tempdir()
        .map_err(|e| DistillError::io("create", &std::env::temp_dir(), e))?;
    let schema_path = dir.path().join("schema.json");
    std::fs::write(&schema_path, call.schema.to_string())
        .map_err(|e| DistillError::io("write", &schema_path, e))?;
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..])
        .args(agent_args(call.agent, call.schema, dir.path()))
        .args(call.extra_args)
        .current_dir(dir.path())
        .env(CHILD_MARKER, "1")
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().map_err(|e| missing(e.to_string()))?;
    // From here on, every way out of this function kills the whole group (`Group::drop`).
    let group = stop.enter(child.id() as i32);
    let (tx, rx) = channel();
    if let Some(out) = child.stdout.take() {
        read_capped(out, Stream::Stdout, tx.clone());
    }
    if let Some(err) = child.stderr.take() {
        read_capped(err, Stream::Stderr, tx.clone());
    }
    if let Some(mut stdin) = child.stdin.take() {
        let prompt = call.prompt.to_string();
        // A child that never reads its stdin must not block this thread.
        std::thread::spawn(move || {
            let _ = stdin.write_all(prompt.as_bytes());
        });
    }
    std::thread::spawn(move || {
        let _ = tx.send(Event::Exited(child.wait()));
    });
    let deadline = Instant::now() + call.timeout;
    let (mut status, mut stdout, mut stderr) = (None, None, None);
    while status.is_none() || stdout.is_none() || stderr.is_none() {
        let event = rx.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        if stop.is_stopped() {
            return Err(stopped());
        }
        match event {
            Ok(Event::Exited(Ok(s))) => {
                // Whatever it started goes with it; its pipes then close, so the reads end.
                kill_group(group.pgid);
                status = Some(s);
            }
            Ok(Event::Exited(Err(e))) => {
                return Err(DistillError::io("wait for", Path::new(&words[0]), e))
            }
            Ok(Event::Printed(Stream::Stdout, bytes)) => stdout = Some(bytes),
            Ok(Event::Printed(Stream::Stderr, bytes)) => stderr = Some(bytes),
            Ok(Event::Overflowed(stream, pipe)) => {
                kill_group(group.pgid);
                drop(pipe);
                return Err(DistillError::OutputTooLarge {
                    agent,
                    session: call.about.to_string(),
                    stream: stream.name(),
                    limit_kib: OUTPUT_MAX / 1024,
                });
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                return Err(DistillError::AgentTimedOut {
                    agent,
                    session: call.about.to_string(),
                    secs: call.timeout.as_secs(),
                })
            }
        }
    }
    let (Some(status), Some(stdout), Some(stderr)) = (status, stdout, stderr) else {
        unreachable!("the loop ends only with all three");
    };
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    if call.agent == DistillAgent::Claude {
        // Claude Code prints its JSON result on a failure too (and exits 1): what it says there
        // is the reason, not the usage statistics around it.
        if let Some(result) = claude_result(&stdout) {
            return claude_answer(&result, call);
        }
    }
    if !status.success() {
        let said = if stderr.trim().is_empty() {
            &stdout
        } else {
            &stderr
        };
        return Err(DistillError::AgentFailed {
            agent,
            session: call.about.to_string(),
            status: status.to_string(),
            stderr: quoted(said, 600),
        });
    }
    match call.agent {
        DistillAgent::Claude => Err(DistillError::MalformedAnswer {
            agent,
            session: call.about.to_string(),
            reason: format!(
                "Claude Code printed no JSON result ({})",
                quoted(&stdout, 200)
            ),
        }),
        DistillAgent::Codex => {
            let answer = dir.path().join("answer.txt");
            read_bounded(&answer, call)
        }
    }
}

fn read_bounded(path: &Path, call: &AgentCall<'_>) -> Result<String, DistillError> {
    let len = std::fs::metadata(path)
        .map_err(|e| DistillError::io("read", path, e))?
        .len();
    if len > OUTPUT_MAX {
        return Err(DistillError::AnswerTooLarge {
            agent: call.agent.as_str().into(),
            session: call.about.into(),
            bytes: len as usize,
            limit: OUTPUT_MAX as usize,
        });
    }
    let bytes = std::fs::read(path).map_err(|e| DistillError::io("read", path, e))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Claude Code's `--output-format json` result object, when `stdout` is one.
fn claude_result(stdout: &str) -> Option<Value> {
    serde_json::from_str::<Value>(stdout.trim())
        .ok()
        .filter(|v| v["type"] == "result" || v.get("is_error").is_some())
}

/// The answer in Claude Code's result: the structured output when the schema was honoured,
/// else the result text (checked like any answer). A failure says what the client said: that
/// the model gave up on the schema after its tries (`error_max_structured_output_retries`,
/// `errors: ["Failed to provide valid structured output after 5 attempts"]`), or the result
/// text of any other error — never the usage statistics around it.
pub fn claude_answer(result: &Value, call: &AgentCall<'_>) -> Result<String, DistillError> {
    let text = result["result"].as_str().unwrap_or_default();
    let errors: Vec<&str> = result["errors"]
        .as_array()
        .map(|e| e.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let subtype = result["subtype"].as_str().unwrap_or_default();
    if subtype == "error_max_structured_output_retries" {
        let tries = errors
            .iter()
            .find_map(|e| {
                let after = e.split(" after ").nth(1)?;
                after.split_whitespace().next()?.parse::<u32>().ok()
            })
            .map_or_else(|| "its retries".to_string(), |n| format!("{n} tries"));
        // What the model said instead, if anything; else any error besides the count.
        let said = if text.trim().is_empty() {
            errors
                .iter()
                .filter(|e| !e.contains("structured output after"))
                .copied()
                .collect::<Vec<_>>()
                .join("; ")
        } else {
            text.to_string()
        };
        let said = quoted(&said, 300);
        return Err(DistillError::NoValidAnswer {
            agent: "claude".into(),
            session: call.about.to_string(),
            tries,
            reason: if said.is_empty() {
                String::new()
            } else {
                format!(": {said}")
            },
        });
    }
    if result["is_error"].as_bool() == Some(true) || subtype.starts_with("error") {
        // Claude Code says `"subtype": "success"` beside `"is_error": true` for a refused login
        // ("Invalid API key"): that is no success to name.
        let subtype = if subtype.is_empty() || subtype == "success" {
            "error"
        } else {
            subtype
        };
        let said = if text.trim().is_empty() {
            errors.join("; ")
        } else {
            text.to_string()
        };
        return Err(DistillError::AgentFailed {
            agent: "claude".into(),
            session: call.about.to_string(),
            status: quoted(subtype, 80),
            stderr: quoted(&said, 600),
        });
    }
    match (&result["structured_output"], &result["result"]) {
        (Value::Object(_), _) => Ok(result["structured_output"].to_string()),
        (_, Value::String(text)) => Ok(text.clone()),
        _ => Err(DistillError::MalformedAnswer {
            agent: "claude".into(),
            session: call.about.to_string(),
            reason: "the result holds no answer".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_is_run_without_persistence_tools_mcp_or_hooks() {
        let args = agent_args(
            DistillAgent::Claude,
            &serde_json::json!({}),
            Path::new("/t"),
        );
        for flag in [
            "--no-session-persistence",
            "--strict-mcp-config",
            "--json-schema",
        ] {
            assert!(args.iter().any(|a| a == flag), "{flag} in {args:?}");
        }
        let tools = args.iter().position(|a| a == "--tools").unwrap();
        assert_eq!(args[tools + 1], "");
        assert!(args.iter().any(|a| a.contains("disableAllHooks")));
    }

    #[test]
    fn codex_is_run_ephemeral_read_only_without_hooks() {
        let args = agent_args(DistillAgent::Codex, &serde_json::json!({}), Path::new("/t"));
        for flag in ["--ephemeral", "--output-schema", "read-only", "hooks", "-"] {
            assert!(args.iter().any(|a| a == flag), "{flag} in {args:?}");
        }
    }

    #[test]
    fn every_configured_codex_mcp_server_is_switched_off() {
        let config = "model = \"m\"\n[mcp_servers.ambry]\ncommand = \"ambry\"\n[mcp_servers.\"my.db\"]\ncommand = \"x\"\n";
        assert_eq!(
            codex_servers_off(config),
            vec![
                "-c",
                "mcp_servers.ambry.enabled=false",
                "-c",
                "mcp_servers.\"my.db\".enabled=false"
            ]
        );
        assert!(codex_servers_off("model = 1").is_empty());
    }

    #[test]
    fn a_missing_agent_is_a_clear_error_naming_the_config_key() {
        let schema = serde_json::json!({});
        let call = AgentCall {
            agent: DistillAgent::Codex,
            command: "/nonexistent/codex-binary",
            prompt: "x",
            schema: &schema,
            timeout: Duration::from_secs(5),
            about: "session s",
            extra_args: &[],
        };
        let err = ChildRunner::default().call(&call).unwrap_err();
        assert!(err.to_string().contains("codex_command"), "{err}");
    }

    fn call_for<'a>(schema: &'a Value, command: &'a str) -> AgentCall<'a> {
        AgentCall {
            agent: DistillAgent::Claude,
            command,
            prompt: "x",
            schema,
            timeout: Duration::from_secs(60),
            about: "session s",
            extra_args: &[],
        }
    }

    #[test]
    fn a_schema_given_up_on_is_said_with_its_tries_and_no_usage() {
        let schema = serde_json::json!({});
        let call = call_for(&schema, "claude");
        let result = serde_json::json!({"type": "result",
            "subtype": "error_max_structured_output_retries", "is_error": true,
            "usage": {"input_tokens": 5123}, "total_cost_usd": 0.2,
            "errors": ["Failed to provide valid structured output after 5 attempts"]});
        let err = claude_answer(&result, &call).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "the agent (claude) could not produce a valid answer for session s (5 tries);"
            ),
            "{err}"
        );
        assert!(!err.contains("usage"), "{err}");
        let mut said = result.clone();
        said["result"] = serde_json::json!("I cannot \u{1b}[31mfit\u{1b}[0m the schema");
        said["errors"] = serde_json::json!([]);
        let err = claude_answer(&said, &call).unwrap_err().to_string();
        assert!(
            err.contains("(its retries): I cannot fit the schema;"),
            "{err}"
        );
    }

    #[test]
    fn a_refused_login_is_said_as_an_error_with_the_clients_words() {
        let schema = serde_json::json!({});
        let call = call_for(&schema, "claude");
        let result = serde_json::json!({"type": "result", "subtype": "success",
            "is_error": true, "result": "Invalid API key · Please run /login"});
        let err = claude_answer(&result, &call).unwrap_err().to_string();
        assert_eq!(
            err,
            "claude failed for session s (error): Invalid API key · Please run /login"
        );
    }

    #[test]
    fn a_stopped_handle_starts_no_child() {
        let schema = serde_json::json!({});
        let dir = tempfile::tempdir().unwrap();
        let ran = dir.path().join("ran");
        let command = format!("touch {}", ran.display());
        let runner = ChildRunner::default();
        runner.stop.stop();
        let err = runner.call(&call_for(&schema, &command)).unwrap_err();
        assert!(matches!(err, DistillError::Stopped { .. }), "{err}");
        assert!(!ran.exists());
    }
}
