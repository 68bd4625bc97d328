#!/usr/bin/env python3
"""Writes N distinct agent sessions in the real transcript formats, for measuring recall.

usage: gen_sessions.py FORMATS_DIR CLAUDE_CONFIG_DIR CODEX_HOME [N]

Each session is one of the real samples in FORMATS_DIR (Claude Code's `claude-code/*.jsonl`,
Codex's `codex/*.jsonl`) played one to eight times over, with its own session id, project folder
and times; every replay after the first has the person's prompts and the agent's answers
replaced by one of a list of everyday engineering threads, so sessions differ in what was said
and in how long they are. Every other line (tool calls and results, progress, metadata) is kept
as the agent wrote it. Deterministic: the same N gives the same files.
"""

import json
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

TOPICS = [
    ("the redis cache eviction drops hot keys under load",
     "Switched maxmemory-policy to allkeys-lfu and raised the memory limit for the cache."),
    ("the login test is flaky on CI",
     "The test raced the session cookie; I made it wait for the redirect before asserting."),
    ("refresh token rotation logs users out with two tabs open",
     "Two tabs refreshed at once and the second used a revoked token; added a grace window."),
    ("the canary deploy is stuck at 10 percent",
     "The health check path was wrong in the rollout config, so the canary was never promoted."),
    ("the postgres migration locks the orders table",
     "Split the migration: add the column without a default, backfill in batches, then the constraint."),
    ("dark mode colors are wrong in the settings page",
     "The settings page used hard-coded hex values instead of the theme variables."),
    ("the webpack bundle is too big after adding charts",
     "Lazy-load the chart library and import only the modules we use."),
    ("the rate limiter rejects the health checks",
     "Exempted the internal health endpoint from the token bucket."),
    ("memory leak in the websocket handler",
     "Each reconnect kept a listener on the old socket; now it is removed on close."),
    ("the docker image build takes twenty minutes",
     "Reordered the Dockerfile so dependencies are cached before the source is copied."),
    ("S3 uploads time out for large files",
     "Use multipart uploads with 8 MB parts and retry each part."),
    ("the GraphQL resolver does N+1 queries",
     "Added a dataloader to batch the author lookups per request."),
    ("the cron job runs twice after daylight saving",
     "Scheduled it in UTC and gave the job an idempotency key."),
    ("the elixir genserver crashes on timeout",
     "Raised the call timeout and handled the timeout exit in the caller."),
    ("the kubernetes pod is OOMKilled during startup",
     "The JVM ignored the container limit; set MaxRAMPercentage."),
    ("tailwind classes are missing in the production build",
     "The content globs did not include the templates folder, so purge removed them."),
    ("search results ignore accents",
     "Normalized both the index and the query with unicode folding."),
    ("stripe webhook signature verification fails",
     "We parsed the body as JSON before verifying; the raw bytes are needed."),
    ("the CSV export garbles non-ascii names",
     "Write a UTF-8 byte order mark so spreadsheets detect the encoding."),
    ("terraform plan wants to recreate the database",
     "A changed parameter group forced replacement; moved it under lifecycle ignore_changes."),
    ("rust borrow checker error in the parser iterator",
     "Collected the tokens first, then mutated the state outside the loop."),
    ("the python virtualenv picks the wrong interpreter",
     "The shebang pointed at the system python; recreated the venv with the pyenv version."),
    ("nginx returns 502 after the upgrade",
     "The upstream socket path changed; updated proxy_pass to the new socket."),
    ("feature flag evaluation is slow",
     "Cache the flag rules in memory and refresh them every thirty seconds."),
    ("email templates render broken in outlook",
     "Outlook needs table layouts and inline styles; rewrote the header."),
    ("git rebase lost a commit",
     "Recovered it from the reflog and cherry-picked it back."),
    ("the mobile app crashes when offline",
     "Guarded the sync call and queued writes until the network returns."),
    ("the prometheus alert fires on every deploy",
     "Added a five minute for clause so a restart does not page anyone."),
    ("timezone bug in the invoice dates",
     "Stored timestamps as UTC and formatted them in the customer's zone."),
    ("image thumbnails are blurry on retina screens",
     "Generate 2x thumbnails and serve them with srcset."),
    ("the sqlite database is locked during backups",
     "Use the online backup API instead of copying the file, with WAL mode on."),
    ("the oauth callback fails behind the load balancer",
     "The app built the redirect URL with http; trust the X-Forwarded-Proto header."),
]
PROJECTS = ["spotter", "billing", "storefront", "infra", "mobile", "search", "auth", "reports",
            "mailer", "gateway", "analytics", "cli"]
START = datetime(2026, 3, 1, 9, 0, 0, tzinfo=timezone.utc)


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def typed_prompt(text):
    """What the person typed, as opposed to agent plumbing (`<command-name>`, caveats...)."""
    return isinstance(text, str) and text.strip() and not text.lstrip().startswith(("<", "["))


def claude_line(d, sid, cwd, t, topic):
    d = dict(d)
    if "sessionId" in d:
        d["sessionId"] = sid
    if "cwd" in d:
        d["cwd"] = cwd
    if "timestamp" in d:
        d["timestamp"] = stamp(t)
    msg = d.get("message")
    if topic and isinstance(msg, dict):
        msg = json.loads(json.dumps(msg))
        d["message"] = msg
        content = msg.get("content")
        if d.get("type") == "user" and typed_prompt(content):
            msg["content"] = topic[0]
        elif d.get("type") == "assistant" and isinstance(content, list):
            for block in content:
                if block.get("type") == "text" and block.get("text", "").strip():
                    block["text"] = topic[1]
    return d


def codex_line(d, sid, cwd, t, topic):
    d = json.loads(json.dumps(d))
    d["timestamp"] = stamp(t)
    p = d.get("payload") or {}
    if d.get("type") == "session_meta":
        p["id"], p["cwd"], p["timestamp"] = sid, cwd, stamp(t)
    if d.get("type") == "turn_context":
        p["cwd"] = cwd
    if topic:
        if p.get("type") == "message":
            for block in p.get("content") or []:
                if p.get("role") == "user" and typed_prompt(block.get("text")):
                    block["text"] = topic[0]
                if p.get("role") == "assistant" and block.get("type") == "output_text":
                    block["text"] = topic[1]
        if p.get("type") == "user_message" and typed_prompt(p.get("message")):
            p["message"] = topic[0]
        if p.get("type") == "agent_message":
            p["message"] = topic[1]
        if p.get("type") == "task_complete" and p.get("last_agent_message"):
            p["last_agent_message"] = topic[1]
    return d


def main():
    formats, claude_dir, codex_dir = (Path(a) for a in sys.argv[1:4])
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 272
    samples = [("claude", p) for p in sorted((formats / "claude-code").glob("*.jsonl"))]
    samples += [("codex", p) for p in sorted((formats / "codex").glob("*.jsonl"))]
    lines = {p: [json.loads(l) for l in p.read_text().splitlines() if l.strip()] for _, p in samples}
    for i in range(n):
        kind, sample = samples[i % len(samples)]
        sid = str(uuid.UUID(int=(0xA1B2 << 112) + i))
        project = PROJECTS[(i * 5) % len(PROJECTS)]
        cwd = f"/home/dev/projects/{project}"
        begin = START + timedelta(hours=7 * i)
        out = []
        for rep in range(1 + (i * 7) % 8):
            topic = None if rep == 0 else TOPICS[(i * 3 + rep * 5) % len(TOPICS)]
            for k, d in enumerate(lines[sample]):
                t = begin + timedelta(minutes=10 * rep, seconds=k)
                line = claude_line if kind == "claude" else codex_line
                out.append(json.dumps(line(d, sid, cwd, t, topic)))
        if kind == "claude":
            path = Path(claude_dir) / "projects" / cwd.replace("/", "-") / f"{sid}.jsonl"
        else:
            day = begin.strftime("%Y/%m/%d")
            name = f"rollout-{begin.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"
            path = Path(codex_dir) / "sessions" / day / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
