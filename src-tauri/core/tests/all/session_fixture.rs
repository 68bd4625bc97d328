//! A labeled recall fixture: two dozen synthetic sessions written in the real Claude Code,
//! Codex and Ambry-native formats (with the injected context, progress, tool and bookkeeping
//! lines those formats carry), and questions a person would ask, each labeled with the
//! session that answers it. Used by the recall quality gate and the session benchmarks.

#![allow(dead_code)]

use std::fs;
use std::path::Path;

use serde_json::json;

pub struct Session {
    pub source: &'static str,
    pub id: &'static str,
    pub cwd: &'static str,
    /// Alternating user / assistant turns, starting with the user.
    pub turns: &'static [&'static str],
}

pub const SESSIONS: &[Session] = &[
    Session { source: "claude", id: "c-redis-drop", cwd: "/home/dev/shop", turns: &[
        "The Redis cache in front of the product catalog keeps serving stale prices after imports. Should we keep it?",
        "The invalidation is racy: the import job writes Postgres, then publishes, and readers refill the old value in between. Since the catalog queries are already fast with the materialized view, removing Redis is simpler than fixing invalidation.",
        "Agreed, let's remove it. Take Redis out of the catalog service and the docker-compose file.",
        "Done: the catalog reads the materialized view directly, the Redis client and its config are gone, and docker-compose no longer starts a redis container. Latency stayed under 20 ms in the load test.",
    ]},
    Session { source: "claude", id: "c-tz-test", cwd: "/home/dev/shop", turns: &[
        "test_invoice_due_date fails on CI but passes on my laptop",
        "CI runs in UTC and your machine is in Europe/Berlin. The test builds the due date with a naive local datetime, so near midnight the day differs. I pinned the test clock to UTC and compare dates in UTC.",
    ]},
    Session { source: "codex", id: "x-jwt-rotation", cwd: "/home/dev/api", turns: &[
        "Users get logged out randomly; I think the refresh token rotation is broken",
        "Two tabs refresh concurrently: the first rotation revokes the token the second tab is still using, so the second refresh fails and the session is dropped. I added a 30 second grace window in which the previous refresh token is still accepted once, and store the token family to detect reuse.",
    ]},
    Session { source: "codex", id: "x-vite", cwd: "/home/dev/web", turns: &[
        "The webpack dev server takes 40 seconds to start. Can we do better?",
        "Most of the time is babel transpiling node_modules. Vite serves native ES modules in development and uses esbuild for dependencies, so cold start drops to about 2 seconds. I migrated the config, replaced the env variable prefix with VITE_ and removed webpack and its loaders.",
    ]},
    Session { source: "ambry", id: "n-oomkilled", cwd: "/home/dev/infra", turns: &[
        "The worker pods keep getting OOMKilled in the cluster",
        "The JVM in the worker sizes its heap from the node's memory, not from the container limit, so it grows past the 512Mi limit. I set -XX:MaxRAMPercentage=75 and raised the limit to 768Mi; the pods have been stable since.",
    ]},
    Session { source: "claude", id: "c-liveview-socket", cwd: "/home/dev/spotter", turns: &[
        "The LiveView page flickers and the socket reconnects every few seconds",
        "The load balancer closes idle connections after 5 seconds, shorter than the Phoenix heartbeat of 30 seconds. I raised the idle timeout on the load balancer to 60 seconds and the reconnect loop stopped.",
    ]},
    Session { source: "codex", id: "x-orders-index", cwd: "/home/dev/api", turns: &[
        "The customer orders page takes 8 seconds to load",
        "EXPLAIN shows a sequential scan of orders filtered by customer_id. I added a migration creating an index on orders(customer_id, created_at) concurrently; the query now takes 4 ms.",
    ]},
    Session { source: "ambry", id: "n-rate-limit", cwd: "/home/dev/api", turns: &[
        "A single client hammered the public endpoints yesterday. We need limits per API key.",
        "I added a token bucket per API key: 100 requests per minute with bursts of 20, kept in process memory per instance, and clients over the limit get HTTP 429 with a Retry-After header.",
    ]},
    Session { source: "claude", id: "c-ci-cache", cwd: "/home/dev/engine", turns: &[
        "Our GitHub Actions workflow rebuilds every crate from scratch, 25 minutes per push",
        "I added Swatinem/rust-cache keyed on Cargo.lock and the toolchain, and split clippy and tests into parallel jobs. Warm runs now take 6 minutes.",
    ]},
    Session { source: "codex", id: "x-docker-slim", cwd: "/home/dev/api", turns: &[
        "The api image is 1.8 GB, pulls are slow on deploys",
        "I switched the Dockerfile to a multi-stage build: compile in the full toolchain image, copy only the binary into distroless. The image is 45 MB now.",
    ]},
    Session { source: "claude", id: "c-feature-flags", cwd: "/home/dev/shop", turns: &[
        "Where do we keep feature flags now that we dropped the SaaS?",
        "Flags live in the feature_flags table in Postgres, cached in each process for 30 seconds; the admin page toggles them and a flag defaults to off when missing.",
    ]},
    Session { source: "ambry", id: "n-presigned", cwd: "/home/dev/media", turns: &[
        "Customers say large video uploads fail halfway with AccessDenied",
        "The S3 presigned PUT URLs were created with a 5 minute expiry, and big uploads outlast them. I raised the expiry to 2 hours and switched files over 100 MB to multipart upload with one presigned URL per part.",
    ]},
    Session { source: "claude", id: "c-json-logs", cwd: "/home/dev/engine", turns: &[
        "Loki can't parse our log lines, can we emit structured logs?",
        "I configured tracing-subscriber with the json formatter in production and kept the pretty formatter for local runs; every line now carries the request id and span fields.",
    ]},
    Session { source: "codex", id: "x-cron-dst", cwd: "/home/dev/jobs", turns: &[
        "The nightly billing export ran twice on Sunday",
        "The scheduler evaluates cron expressions in Europe/London, and at the end of daylight saving 01:30 happens twice. I moved the schedule to UTC and added an idempotency key per export date.",
    ]},
    Session { source: "claude", id: "c-smtp", cwd: "/home/dev/shop", turns: &[
        "Nobody received password reset mails since Friday",
        "The mailer authenticates with an SMTP password that was rotated on Friday; delivery failed with 535 authentication errors that were only logged at debug level. I updated the secret and made send failures log at error level and alert.",
    ]},
    Session { source: "ambry", id: "n-dataloader", cwd: "/home/dev/api", turns: &[
        "The GraphQL query for a team with its members issues hundreds of SQL queries",
        "Each member resolver loads its profile separately, the classic N+1. I added a DataLoader per request that batches profile lookups into one WHERE id IN query.",
    ]},
    Session { source: "codex", id: "x-lifetime", cwd: "/home/dev/engine", turns: &[
        "borrowed value does not live long enough when I spawn the task inside the loop",
        "tokio::spawn needs a 'static future, but the async block borrows config from the loop. I cloned the Arc<Config> into the block and moved it in, which satisfies the borrow checker.",
    ]},
    Session { source: "claude", id: "c-pgbouncer", cwd: "/home/dev/api", turns: &[
        "Postgres says FATAL: sorry, too many clients already during peaks",
        "Every app instance opens a pool of 20 connections and autoscaling reaches 15 instances, beyond max_connections. I put pgbouncer in transaction mode in front of Postgres and lowered each pool to 5.",
    ]},
    Session { source: "ambry", id: "n-german", cwd: "/home/dev/web", turns: &[
        "Half the checkout page is in English for German users",
        "The de locale file lacked the checkout namespace entirely. I added the translations and a CI check that fails when a key exists in en but not in de.",
    ]},
    Session { source: "codex", id: "x-oauth-redirect", cwd: "/home/dev/api", turns: &[
        "Sign in with Google fails with redirect_uri_mismatch on staging",
        "The OAuth client lists only the production callback URL. I registered the staging callback in the Google console and made the callback URL come from configuration instead of being hard-coded.",
    ]},
    Session { source: "claude", id: "c-node-leak", cwd: "/home/dev/web", turns: &[
        "The SSR node server's memory grows until it restarts every few hours",
        "A heap snapshot shows thousands of listeners on the shared event emitter: each request subscribes and never unsubscribes. I remove the listener in the request's finally block; the heap is flat now.",
    ]},
    Session { source: "ambry", id: "n-terraform-lock", cwd: "/home/dev/infra", turns: &[
        "terraform apply says Error acquiring the state lock",
        "A cancelled pipeline left its lock in the DynamoDB lock table. I checked nobody was applying, ran terraform force-unlock with the lock id, and made the pipeline release the lock on cancellation.",
    ]},
    Session { source: "codex", id: "x-cursor-pages", cwd: "/home/dev/api", turns: &[
        "The activity feed shows duplicates when paging",
        "Offset pagination shifts when new rows arrive between page loads. I replaced it with cursor pagination on (created_at, id), which is stable and also faster on deep pages.",
    ]},
    Session { source: "claude", id: "c-dark-mode", cwd: "/home/dev/web", turns: &[
        "Add a dark mode that follows the system setting",
        "Colors are now CSS custom properties on :root, with a prefers-color-scheme: dark media query overriding them, and a toggle stores an explicit choice in localStorage.",
    ]},
];

/// Questions as people ask them, each with the session that answers it.
pub const QUESTIONS: &[(&str, &str)] = &[
    (
        "when did we decide to drop the Redis cache?",
        "c-redis-drop",
    ),
    ("why were catalog prices stale?", "c-redis-drop"),
    ("which test failed because of the timezone?", "c-tz-test"),
    (
        "how did we fix the refresh token rotation?",
        "x-jwt-rotation",
    ),
    ("why are users logged out randomly", "x-jwt-rotation"),
    ("why did we move off webpack?", "x-vite"),
    ("what caused the pods to run out of memory?", "n-oomkilled"),
    (
        "websocket keeps reconnecting in liveview",
        "c-liveview-socket",
    ),
    ("slow query on the orders table", "x-orders-index"),
    ("how do we throttle API clients?", "n-rate-limit"),
    ("speed up the CI pipeline cargo build", "c-ci-cache"),
    ("make the docker image smaller", "x-docker-slim"),
    ("where are feature flags stored?", "c-feature-flags"),
    ("upload links expire too quickly", "n-presigned"),
    ("switch logs to json format", "c-json-logs"),
    (
        "the nightly job ran twice during daylight saving",
        "x-cron-dst",
    ),
    ("why were password reset emails not delivered?", "c-smtp"),
    ("fix the n+1 problem in graphql resolvers", "n-dataloader"),
    ("lifetime error when spawning a task", "x-lifetime"),
    ("too many database connections", "c-pgbouncer"),
    ("missing german translations", "n-german"),
    ("google sign-in redirect error", "x-oauth-redirect"),
    ("node process memory keeps growing", "c-node-leak"),
    ("terraform state is locked", "n-terraform-lock"),
    ("why cursor pagination instead of offset?", "x-cursor-pages"),
    ("how does the dark theme work?", "c-dark-mode"),
];

/// Writes every session into the three roots, each in its source's real format.
pub fn write_all(claude_root: &Path, codex_root: &Path, ambry_root: &Path) {
    for (i, s) in SESSIONS.iter().enumerate() {
        let minute = i as u32;
        let text = match s.source {
            "claude" => claude_lines(s, minute),
            "codex" => codex_lines(s, minute),
            _ => native_lines(s, minute),
        };
        let path = path_of(s, claude_root, codex_root, ambry_root);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

pub fn path_of(
    s: &Session,
    claude_root: &Path,
    codex_root: &Path,
    ambry_root: &Path,
) -> std::path::PathBuf {
    match s.source {
        "claude" => claude_root
            .join(s.cwd.replace('/', "-"))
            .join(format!("{}.jsonl", s.id)),
        "codex" => codex_root
            .join("2026/05/12")
            .join(format!("rollout-2026-05-12T10-00-00-{}.jsonl", s.id)),
        _ => ambry_root.join(format!("{}.jsonl", s.id)),
    }
}

fn ts(minute: u32, second: u32) -> String {
    format!(
        "2026-05-12T{:02}:{:02}:{:02}.000Z",
        8 + minute / 60,
        minute % 60,
        second
    )
}

/// Claude Code 2.x: hook progress, snapshots, a system reminder around the first prompt,
/// thinking and tool blocks, and a slash-command echo.
pub fn claude_lines(s: &Session, minute: u32) -> String {
    let base = json!({"isSidechain": false, "userType": "external", "cwd": s.cwd, "sessionId": s.id, "version": "2.1.38", "gitBranch": "main"});
    let with = |extra: serde_json::Value| {
        let mut v = base.clone();
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v.to_string()
    };
    let mut lines = vec![
        json!({"type": "file-history-snapshot", "messageId": "m0", "snapshot": {"trackedFileBackups": {}, "timestamp": ts(minute, 0)}, "isSnapshotUpdate": false}).to_string(),
        with(json!({"type": "progress", "data": {"type": "hook_progress", "hookEvent": "SessionStart"}, "timestamp": ts(minute, 0), "uuid": "p0"})),
    ];
    for (n, turn) in s.turns.iter().enumerate() {
        let at = ts(minute, 1 + n as u32 * 4);
        if n % 2 == 0 {
            let text = if n == 0 {
                format!("<system-reminder>\nThe project uses git.\n</system-reminder>\n{turn}")
            } else {
                turn.to_string()
            };
            lines.push(with(json!({"type": "user", "message": {"role": "user", "content": text}, "uuid": format!("u{n}"), "timestamp": at})));
        } else {
            lines.push(with(json!({"type": "assistant", "message": {"model": "claude-opus-4-6", "role": "assistant", "content": [{"type": "thinking", "thinking": "Let me look at the code first.", "signature": "x"}]}, "timestamp": at})));
            lines.push(with(json!({"type": "assistant", "message": {"model": "claude-opus-4-6", "role": "assistant", "content": [{"type": "tool_use", "id": format!("t{n}"), "name": "Bash", "input": {"command": "git log --oneline -5"}}]}, "timestamp": at})));
            lines.push(with(json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("t{n}"), "content": "a1b2c3 initial commit"}]}, "timestamp": at})));
            lines.push(with(json!({"type": "assistant", "message": {"model": "claude-opus-4-6", "role": "assistant", "content": [{"type": "text", "text": turn}]}, "timestamp": at})));
        }
    }
    lines.push(with(json!({"type": "user", "isMeta": true, "message": {"role": "user", "content": "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>"}, "timestamp": ts(minute, 50)})));
    lines.push(with(json!({"type": "system", "subtype": "local_command", "content": "<command-name>/model</command-name>", "timestamp": ts(minute, 51)})));
    lines.join("\n") + "\n"
}

/// Codex rollouts: session meta, permissions and environment context, turn context, the
/// event echoes of each message, reasoning, a tool call and token counts.
pub fn codex_lines(s: &Session, minute: u32) -> String {
    let mut lines = vec![
        json!({"timestamp": ts(minute, 0), "type": "session_meta", "payload": {"id": s.id, "timestamp": ts(minute, 0), "cwd": s.cwd, "originator": "codex_cli_rs", "cli_version": "0.129.0"}}).to_string(),
        json!({"timestamp": ts(minute, 0), "type": "response_item", "payload": {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>\nworkspace-write\n</permissions instructions>"}]}}).to_string(),
        json!({"timestamp": ts(minute, 0), "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("<environment_context>\n  <cwd>{}</cwd>\n</environment_context>", s.cwd)}]}}).to_string(),
        json!({"timestamp": ts(minute, 0), "type": "turn_context", "payload": {"cwd": s.cwd, "model": "gpt-5-codex", "approval_policy": "never"}}).to_string(),
    ];
    for (n, turn) in s.turns.iter().enumerate() {
        let at = ts(minute, 1 + n as u32 * 4);
        if n % 2 == 0 {
            lines.push(json!({"timestamp": at, "type": "event_msg", "payload": {"type": "task_started", "turn_id": format!("t{n}")}}).to_string());
            lines.push(json!({"timestamp": at, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": turn}]}}).to_string());
            lines.push(json!({"timestamp": at, "type": "event_msg", "payload": {"type": "user_message", "message": turn, "images": []}}).to_string());
        } else {
            lines.push(json!({"timestamp": at, "type": "response_item", "payload": {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"}}).to_string());
            lines.push(json!({"timestamp": at, "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"rg\",\"-n\",\"TODO\"]}", "call_id": format!("c{n}")}}).to_string());
            lines.push(json!({"timestamp": at, "type": "response_item", "payload": {"type": "function_call_output", "call_id": format!("c{n}"), "output": "{\"output\":\"src/main.rs:1: TODO\"}"}}).to_string());
            lines.push(json!({"timestamp": at, "type": "event_msg", "payload": {"type": "agent_message", "message": turn}}).to_string());
            lines.push(json!({"timestamp": at, "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": turn}]}}).to_string());
            lines.push(json!({"timestamp": at, "type": "event_msg", "payload": {"type": "token_count", "info": null}}).to_string());
        }
    }
    lines.join("\n") + "\n"
}

pub fn native_lines(s: &Session, minute: u32) -> String {
    let mut lines =
        vec![json!({"session": {"id": s.id, "cwd": s.cwd, "model": "local"}}).to_string()];
    for (n, turn) in s.turns.iter().enumerate() {
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        lines.push(
            json!({"ts": ts(minute, 1 + n as u32 * 4), "role": role, "text": turn}).to_string(),
        );
        if n % 2 == 1 {
            lines.push(json!({"ts": ts(minute, 2 + n as u32 * 4), "role": "tool", "text": "exit status 0"}).to_string());
        }
    }
    lines.join("\n") + "\n"
}
