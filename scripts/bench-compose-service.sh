#!/usr/bin/env bash
# What an agent pays per turn for `ambry compose` at N memories, as a fresh process:
# bm25 in-process, semantic in-process (model loaded every turn), and through the compose
# service that the first `ambry compose` starts by itself (model kept loaded). Checks that the
# served block is byte for byte the in-process one (query and both hook forms), and reports the
# service's resident memory.
# usage: scripts/bench-compose-service.sh [N] [MODELS_DIR]
#   (default 1000 and ~/.cache/ambry/models; needs hyperfine and the model assets)
# Up to 2000 memories are embedded for real (`ambry memory reindex`, about 20-40 memories/s on
# 2 cores); above that each memory gets a random unit vector of the model's size instead
# (gen_memories MODEL_ID): the scan costs the same, the ranking means nothing.
# Only the release CLI is built (AMBRY_BIN=path uses one already built); the generator is the
# dev-profile example the workspace's tests build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n="${1:-1000}"
models="${2:-$HOME/.cache/ambry/models}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
model_id="all-MiniLM-L6-v2"
bin="${AMBRY_BIN:-$target/release/ambry}"
[ -n "${AMBRY_BIN:-}" ] || cargo build --release --locked -q -p ambry-cli
[ -x "$target/debug/examples/gen_memories" ] || cargo build --locked -q --workspace --example gen_memories
work="$(mktemp -d)"
cleanup() {
  # The self-started service of this throwaway home, by the pid it reported.
  if [ -n "${server:-}" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
server=""
trap cleanup EXIT
export AMBRY_MODELS_DIR="$models"
ambry="$bin --home $work/home --cwd $work/repo"
if [ "$n" -le 2000 ]; then
  "$target/debug/examples/gen_memories" "$work" "$n"
  $ambry memory reindex >/dev/null
else
  "$target/debug/examples/gen_memories" "$work" "$n" "$model_id"
fi
query="why does the refresh token cache break after a canary deploy?"
AMBRY_NO_SERVICE=1 $ambry compose --query "$query" >/dev/null   # warms index.sqlite, as any earlier turn would

printf '[retrieval]\nstrategy = "bm25"\n' > "$work/home/config.toml"
AMBRY_NO_SERVICE=1 hyperfine -N --warmup 3 --runs 40 --export-json "$work/bm25.json" \
  -n "bm25, in-process" "$ambry compose --query '$query'"
rm "$work/home/config.toml"   # default strategy: auto
AMBRY_NO_SERVICE=1 hyperfine -N --warmup 2 --runs 20 --export-json "$work/semantic.json" \
  -n "auto (semantic), in-process" "$ambry compose --query '$query'"

# The first turn finds no service: it answers in-process and starts one in the background.
$ambry compose --query "$query" >/dev/null
for _ in $(seq 1 300); do $ambry serve --status >/dev/null 2>&1 && break; sleep 0.1; done
server=$($ambry --json serve --status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
hyperfine -N --warmup 3 --runs 60 --export-json "$work/service.json" \
  -n "auto (semantic), via the self-started service" "$ambry compose --query '$query'"
$ambry serve --status
echo "service RSS: $(grep -E 'VmRSS|VmHWM' /proc/$server/status | tr -s ' ' | tr '\n' ' ')"

# The served block is the in-process block, byte for byte, for every way an agent asks. Each
# hook turn is the first prompt of its own agent session, after its SessionStart (a hook records
# what it gave in the injection ledger: a second turn of one session rightly gets less, and a
# new context's map lists the most used memories).
payload() {
  python3 -c 'import json,sys; print(json.dumps({"session_id": sys.argv[3], "cwd": sys.argv[1], "hook_event_name": sys.argv[4], "source": "startup", "prompt": sys.argv[2]}))' "$work/repo" "$query" "$1" "$2"
}
same=0
for form in query claude codex; do
  ask() {
    if [ "$form" = query ]; then $ambry compose --query "$query"; else
      payload "$1-$form" SessionStart | $ambry compose --hook "$form" >/dev/null
      payload "$1-$form" UserPromptSubmit | $ambry compose --hook "$form"
    fi
  }
  served=$(AMBRY_LOG=debug ask served 2>"$work/served.err"; echo x)
  grep -q "served by: service" "$work/served.err" || { echo "FAIL: the $form turn was not served by the service:"; cat "$work/served.err"; same=1; continue; }
  inproc=$(AMBRY_NO_SERVICE=1 ask inproc; echo x)
  if [ "$served" = "$inproc" ] && [ "${#served}" -gt 2 ]; then
    echo "identical ($form): served and in-process blocks are the same ${#served} bytes"
  else
    echo "FAIL: the served $form block differs from the in-process one:"; diff <(printf '%s' "$inproc") <(printf '%s' "$served") || true; same=1
  fi
done

for f in bm25 semantic service; do
  python3 - "$work/$f.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
t = sorted(x * 1000 for x in r["times"])
p = lambda q: t[min(len(t) - 1, round(q * (len(t) - 1)))]
print(f'{r["command"]:<46} mean {statistics.mean(t):7.1f} ms   p50 {p(0.5):7.1f} ms   p95 {p(0.95):7.1f} ms   (n={len(t)})')
PY
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $same
