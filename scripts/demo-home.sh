#!/usr/bin/env bash
# Seeds a realistic Ambry home (user and project memories, a project with its AMBRY.md,
# archived versions) through the real `ambry` binary, for screenshots and manual testing.
#   scripts/demo-home.sh DIR [AMBRY_BIN]
# DIR/home becomes AMBRY_HOME, DIR/ledger a git repository registered as a project.
set -euo pipefail
dir=${1:?usage: demo-home.sh DIR [AMBRY_BIN]}
ambry=${2:-${CARGO_TARGET_DIR:-target}/debug/ambry}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
export AMBRY_HOME="$dir/home"
repo="$dir/ledger"
mkdir -p "$repo"
git -C "$repo" init -q 2>/dev/null || true
git -C "$repo" remote add origin git@github.com:acme/ledger.git 2>/dev/null || true

save() { # scope name type description body
  local scope=$1 name=$2 type=$3 description=$4 body=$5
  printf '%s\n' "$body" | "$ambry" --cwd "$repo" memory save "$name" --scope "$scope" --type "$type" --description "$description" >/dev/null
}

save user prefer-small-commits feedback "Keep commits small and focused; one logical change each" \
"Split refactors from behaviour changes. When a change touches more than ~300 lines, propose a plan first.

- Commit messages: imperative mood, say *why*.
- Never squash someone else's commits without asking."
save user no-mocks-for-db feedback "Integration tests hit a real Postgres, never a mock" \
"We got burned when mocked tests passed and the migration failed in prod.

Use the \`testcontainers\` setup in \`tests/support\`; it starts in about 2 s."
save user role-backend-lead user "I lead the backend team; prefer Rust and Go, terse answers" \
"I review most backend PRs. Explain trade-offs briefly; skip tutorials on basics."
save user terminal-setup reference "Shell, editor and tools I use daily" \
"- fish shell, Helix editor (\`hx\`), \`rg\` and \`fd\` for search
- \`just\` for task runners in newer repos"
save user review-checklist reference "What I check first in a code review" \
"1. Error paths: is every failure actionable?
2. Tests assert behaviour, not implementation.
3. Names say what things are."
save user debugging-flaky-tests feedback "Flaky tests: find the race, never add sleeps" \
"Add a deterministic clock or a barrier. A retry loop hides the bug."

save project jwt-refresh-flow project "How auth refresh interacts with the token cache" \
"Refresh tokens rotate on every use. The cache in \`pkg/auth/cache.go\` keys by session id.

## Race
Two tabs refreshing at once both present the same refresh token; the second gets 401.
Fix: single-flight per session (\`golang.org/x/sync/singleflight\`)."
save project deploy-pipeline project "Release goes through the staging canary before prod" \
"\`make release\` tags, CI builds the image, Argo rolls it to staging.
Promote with \`make promote ENV=prod\` after the canary dashboard is green for 30 min."
save project ledger-schema reference "Where the double-entry ledger tables are defined" \
"Migrations in \`db/migrations\`; the invariant *sum(debits) = sum(credits) per transaction* is enforced by a deferred constraint trigger."
save project payments-idempotency project "Payment requests must carry an idempotency key" \
"The API rejects POST /payments without \`Idempotency-Key\`. Keys live 24 h in Redis."
save project oncall-runbook reference "Runbook links for the ledger service" \
"- Dashboards: Grafana → Ledger
- Pager: #ledger-oncall
- Known alerts: lag on the outbox relay, stuck reconciliation jobs"
save project style-errors feedback "Wrap errors with context; never log and return" \
"Use \`fmt.Errorf(\"…: %w\", err)\`. Log once, at the edge."

# A second version of two memories, so the archive has history.
save project deploy-pipeline project "Release goes through the staging canary before prod" \
"\`make release\` tags, CI builds the image, Argo rolls it to staging.
Promote with \`make promote ENV=prod\` once the canary dashboard has been green for 30 min.
Roll back with \`make rollback\`; it keeps the previous image warm for an hour."
save user prefer-small-commits feedback "Keep commits small and focused; one logical change each" \
"Split refactors from behaviour changes. When a change touches more than ~300 lines, propose a plan first.

- Commit messages: imperative mood, say *why*.
- Never squash someone else's commits without asking.
- Draft PRs early for anything cross-team."
save user old-vpn-notes reference "VPN setup for the old office network" "Obsolete since the move to the zero-trust proxy."
"$ambry" --cwd "$repo" memory forget old-vpn-notes --scope user >/dev/null

cat > "$AMBRY_HOME/USER.md" <<'MD'
# User preferences

## How I work
- Propose a plan before changes that touch more than one package.
- Run the tests you touched before saying a change is done.

## Style
- Terse answers; code over prose.
- Rust: `thiserror` in libraries, `anyhow` in binaries.
MD
mkdir -p "$repo/.ambry"
cat > "$repo/.ambry/AMBRY.md" <<'MD'
# Project context

## What this is
The ledger service: double-entry bookkeeping for payments, in Go, backed by Postgres.

## Conventions
- Money is `int64` minor units, never floats.
- Every write goes through `ledger.Post`, which checks the balance invariant.

## Commands
- `make test` (needs Docker for Postgres)
- `make lint`
MD
mkdir -p "$AMBRY_HOME/sessions"
cat > "$AMBRY_HOME/sessions/2026-11-20-token-refresh.jsonl" <<JSONL
{"session": {"id": "s-token-refresh", "title": "Fix the token refresh race", "cwd": "$repo", "model": "claude-sonnet"}}
{"ts": "2026-11-20T09:12:03Z", "role": "user", "text": "Two browser tabs refreshing at once log the user out. Can you find the race in the token refresh?"}
{"ts": "2026-11-20T09:12:41Z", "role": "assistant", "text": "Both tabs present the same refresh token; the first rotation invalidates it, so the second request gets a 401. I will wrap the refresh in a single-flight keyed by session id in pkg/auth/cache.go."}
{"ts": "2026-11-20T09:20:10Z", "role": "user", "text": "Good. Add a test that runs two refreshes concurrently against the real cache."}
{"ts": "2026-11-20T09:26:55Z", "role": "assistant", "text": "Added TestConcurrentRefresh: it starts two goroutines behind a barrier and asserts both get the same new access token. It fails without the single-flight and passes with it."}
JSONL
cat > "$AMBRY_HOME/sessions/2026-11-21-canary.jsonl" <<JSONL
{"session": {"id": "s-canary-rollout", "title": "Canary rollout for the ledger release", "cwd": "$repo", "model": "gpt-5-codex"}}
{"ts": "2026-11-21T14:02:00Z", "role": "user", "text": "Promote release 2.14 to prod once the canary looks healthy."}
{"ts": "2026-11-21T14:03:30Z", "role": "assistant", "text": "The canary dashboard has been green for 34 minutes: error rate 0.02%, p99 latency unchanged. Running make promote ENV=prod."}
{"ts": "2026-11-21T14:09:12Z", "role": "assistant", "text": "Promoted. The previous image stays warm for an hour; make rollback restores it."}
JSONL
cat > "$AMBRY_HOME/sessions/2026-11-22-flaky.jsonl" <<JSONL
{"session": {"id": "s-flaky-tests", "title": "Flaky settlement test", "cwd": "$dir/payments", "model": "claude-sonnet"}}
{"ts": "2026-11-22T10:00:00Z", "role": "user", "text": "TestSettlementBatch fails about once in twenty runs on CI. Please fix it without adding sleeps."}
{"ts": "2026-11-22T10:05:00Z", "role": "assistant", "text": "The test reads the clock twice across midnight UTC boundaries in the batch window. I injected a fixed clock through the settlement service constructor; 500 runs pass."}
JSONL
echo "$AMBRY_HOME"
