#!/usr/bin/env bash
# What an agent pays per turn for `engram compose` at N memories, as a fresh process:
# bm25 in-process, semantic in-process (model loaded every turn), and through the compose
# service that the first `engram compose` starts by itself (model kept loaded). Also the
# service's resident memory.
# usage: scripts/bench-compose-service.sh [N] [MODELS_DIR]
#   (default 1000 and ~/.cache/engram/models; needs hyperfine and the model assets;
#    `engram memory reindex` embeds all N memories first: about 40 memories/s on 2 cores)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n="${1:-1000}"
models="${2:-$HOME/.cache/engram/models}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release -q -p engram-cli
cargo build --release -q -p engram-core --example gen_memories --example compose_timing
work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
"$target/release/examples/gen_memories" "$work" "$n"
export ENGRAM_MODELS_DIR="$models"
engram="$target/release/engram --home $work/home --cwd $work/repo"
$engram memory reindex >/dev/null
query="why does the refresh token cache break after a canary deploy?"
$engram compose --query "$query" >/dev/null   # warms index.sqlite, as any earlier turn would

"$target/release/examples/compose_timing" "$work/home" "$work/repo" "$models" "$query"

printf '[retrieval]\nstrategy = "bm25"\n' > "$work/home/config.toml"
ENGRAM_NO_SERVICE=1 hyperfine -N --warmup 3 --runs 40 --export-json "$work/bm25.json" \
  -n "bm25, in-process" "$engram compose --query '$query'"
rm "$work/home/config.toml"   # default strategy: auto
ENGRAM_NO_SERVICE=1 hyperfine -N --warmup 2 --runs 20 --export-json "$work/semantic.json" \
  -n "auto (semantic), in-process" "$engram compose --query '$query'"

# The first turn finds no service: it answers in-process and starts one in the background.
$engram compose --query "$query" >/dev/null
until $engram serve --status >/dev/null 2>&1; do sleep 0.1; done
server=$($engram --json serve --status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
hyperfine -N --warmup 3 --runs 40 --export-json "$work/service.json" \
  -n "auto (semantic), via the self-started service" "$engram compose --query '$query'"
$engram serve --status
echo "service RSS: $(grep -E 'VmRSS|VmHWM' /proc/$server/status | tr -s ' ' | tr '\n' ' ')"

for f in bm25 semantic service; do
  python3 - "$work/$f.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
t = sorted(x * 1000 for x in r["times"])
p = lambda q: t[min(len(t) - 1, round(q * (len(t) - 1)))]
print(f'{r["command"]:<40} mean {statistics.mean(t):7.1f} ms   p50 {p(0.5):7.1f} ms   p95 {p(0.95):7.1f} ms   (n={len(t)})')
PY
done
