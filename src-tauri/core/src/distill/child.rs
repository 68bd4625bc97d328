//! The edge of distill: running the person's own agent CLI headless for one call, and reading
//! its answer out of what that client prints.
//!
//! Owns: the command lines (Claude Code 2.1.197: `claude -p --output-format json
//! --json-schema S --no-session-persistence --tools "" --strict-mcp-config` with all hooks
//! and auto-memory disabled by `--settings`; Codex 0.169.0: `codex exec --ephemeral --output-schema F
//! --output-last-message F --sandbox read-only --disable hooks`), the `AMBRY_DISTILL=1`
//! marker every Ambry hook honours by printing nothing, the prompt on stdin (a transcript
//! chunk can exceed one argument's limit), a private temp directory as the child's working
//! directory, the deadline (the child's whole process group is killed by its id), and bounded
//! reads of what it printed.
//! Deliberately does not: build the prompt or judge the answer (`prompt`, `proposal`).

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use serde_json::Value;

use super::error::DistillError;
use crate::config::DistillAgent;

/// The environment marker of a distill child: `ambry compose --hook` prints nothing under it.
pub const CHILD_MARKER: &str = "AMBRY_DISTILL";

/// Most bytes read of what a child prints (an answer is at most 64 KiB; Claude Code prints it
/// twice, as text and as structured output, with metadata around it).
const OUTPUT_MAX: u64 = 512 * 1024;

/// One call of the agent.
pub struct AgentCall<'a> {
    pub agent: DistillAgent,
    /// The command as configured (`claude`, or a path, possibly with leading arguments).
    pub command: &'a str,
    pub prompt: &'a str,
    pub schema: &'a Value,
    pub timeout: Duration,
    pub session_id: &'a str,
    /// Arguments before the client's own (Codex: the person's MCP servers switched off).
    pub extra_args: &'a [String],
}

/// Runs one call and returns the answer's text. A fake stands in for it in tests of the run.
pub trait AgentRunner {
    fn call(&self, call: &AgentCall<'_>) -> Result<String, DistillError>;
}

/// The real thing: a child process.
pub struct ChildRunner;

impl AgentRunner for ChildRunner {
    fn call(&self, call: &AgentCall<'_>) -> Result<String, DistillError> {
        run_child(call)
    }
}

fn config_key(agent: DistillAgent) -> &'static str {
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

fn run_child(call: &AgentCall<'_>) -> Result<String, DistillError> {
    let agent = call.agent.as_str().to_string();
    let missing = |reason: String| DistillError::AgentMissing {
        program: call.command.to_string(),
        key: config_key(call.agent),
        reason,
    };
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
    let out_path = dir.path().join("stdout");
    let err_path = dir.path().join("stderr");
    let file = |p: &Path| std::fs::File::create(p).map_err(|e| DistillError::io("create", p, e));
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..])
        .args(agent_args(call.agent, call.schema, dir.path()))
        .args(call.extra_args)
        .current_dir(dir.path())
        .env(CHILD_MARKER, "1")
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .stdin(Stdio::piped())
        .stdout(file(&out_path)?)
        .stderr(file(&err_path)?)
        .process_group(0);
    let mut child = cmd.spawn().map_err(|e| missing(e.to_string()))?;
    let pgid = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        let prompt = call.prompt.to_string();
        // A child that never reads its stdin must not block this thread.
        std::thread::spawn(move || {
            let _ = stdin.write_all(prompt.as_bytes());
        });
    }
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = match rx.recv_timeout(call.timeout) {
        Ok(Ok(status)) => status,
        Ok(Err(e)) => return Err(DistillError::io("wait for", Path::new(&words[0]), e)),
        Err(_) => {
            // The whole group, by its id: the client and whatever it started.
            // SAFETY: kill(2) with a negative pid signals exactly that process group.
            unsafe {
                libc::kill(-(pgid as i32), libc::SIGKILL);
            }
            return Err(DistillError::AgentTimedOut {
                agent,
                session: call.session_id.to_string(),
                secs: call.timeout.as_secs(),
            });
        }
    };
    let stdout = read_bounded(&out_path, call)?;
    let stderr = read_bounded(&err_path, call).unwrap_or_default();
    if !status.success() {
        let said = if stderr.trim().is_empty() {
            &stdout
        } else {
            &stderr
        };
        return Err(DistillError::AgentFailed {
            agent,
            session: call.session_id.to_string(),
            status: status.to_string(),
            stderr: tail(said, 600),
        });
    }
    match call.agent {
        DistillAgent::Claude => claude_answer(&stdout, call),
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
            session: call.session_id.into(),
            bytes: len as usize,
            limit: OUTPUT_MAX as usize,
        });
    }
    let bytes = std::fs::read(path).map_err(|e| DistillError::io("read", path, e))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

/// Claude Code's `--output-format json` result: the structured output when the schema was
/// honoured, else the result text (checked like any answer).
pub fn claude_answer(stdout: &str, call: &AgentCall<'_>) -> Result<String, DistillError> {
    let malformed = |reason: String| DistillError::MalformedAnswer {
        agent: "claude".into(),
        session: call.session_id.to_string(),
        reason,
    };
    let result: Value = serde_json::from_str(stdout.trim())
        .map_err(|e| malformed(format!("Claude Code printed no JSON result ({e})")))?;
    if result["is_error"].as_bool() == Some(true) {
        return Err(DistillError::AgentFailed {
            agent: "claude".into(),
            session: call.session_id.to_string(),
            status: result["subtype"].as_str().unwrap_or("error").to_string(),
            stderr: tail(result["result"].as_str().unwrap_or_default(), 600),
        });
    }
    match (&result["structured_output"], &result["result"]) {
        (Value::Object(_), _) => Ok(result["structured_output"].to_string()),
        (_, Value::String(text)) => Ok(text.clone()),
        _ => Err(malformed("the result holds no answer".into())),
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
            session_id: "s",
            extra_args: &[],
        };
        let err = ChildRunner.call(&call).unwrap_err();
        assert!(err.to_string().contains("codex_command"), "{err}");
    }
}
