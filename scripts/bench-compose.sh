#!/usr/bin/env bash
# Whole-process cost of a fresh `ambry compose` (what an agent pays every turn when no compose
# service answers) at N memories, against `rg -l -i WORD` over the same memory files (the time to
# merely scan them). Compose runs in-process (AMBRY_NO_SERVICE=1), strategy bm25, with
# index.sqlite warm as any earlier turn leaves it. Prints p50/p95 of both and the ratio of the
# medians (the goal at 10k: at most 1.5).
# usage: scripts/bench-compose.sh [N] [BASELINE_AMBRY]   (default 10000; needs hyperfine, rg, jq)
# With BASELINE_AMBRY (an `ambry` binary built from another commit), it is timed the same way
# on the same store, and the script fails unless both print byte-identical blocks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n="${1:-10000}"
baseline="${2:-}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --locked -q --workspace --bin ambry --example gen_memories
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$target/release/examples/gen_memories" "$work" "$n"
printf '[retrieval]\nstrategy = "bm25"\n' >"$work/home/config.toml"
export AMBRY_NO_SERVICE=1
query="why does the refresh token cache break after a canary deploy?"
memory_dirs="$work/home/memory $work/home/projects"
forget_cache() { rm -f "$work/home/index.sqlite" "$work/home/index.sqlite-wal" "$work/home/index.sqlite-shm"; }

# p50 and p95 (ms) of one hyperfine JSON export.
percentiles() {
  jq -r '.results[0].times | sort | [.[(length * 0.5 | floor)], .[(length * 0.95 | floor)]] | map(. * 1000 * 10 | round / 10) | "\(.[0]) \(.[1])"' "$1"
}

if [ -n "$baseline" ]; then
  # Each binary keeps its own cache format in index.sqlite: start each from none.
  forget_cache
  "$baseline" --home "$work/home" --cwd "$work/repo" compose --query "$query" >"$work/baseline.txt"
  hyperfine -N --warmup 3 --runs 40 --export-json "$work/baseline.json" \
    -n "baseline ambry compose" "$baseline --home $work/home --cwd $work/repo compose --query '$query'"
  forget_cache
fi

ambry="$target/release/ambry --home $work/home --cwd $work/repo"
$ambry compose --query "$query" >"$work/first.txt"   # builds index.sqlite, as any earlier turn would
$ambry compose --query "$query" >"$work/warm.txt"
cmp "$work/first.txt" "$work/warm.txt"
if [ -n "$baseline" ]; then
  cmp "$work/baseline.txt" "$work/warm.txt" && echo "blocks: byte-identical to the baseline's ($(wc -c <"$work/warm.txt") bytes)"
fi
hyperfine -N --warmup 3 --runs 40 --export-json "$work/compose.json" \
  -n "ambry compose (bm25, in-process, warm index.sqlite)" "$ambry compose --query '$query'"
hyperfine -N --warmup 3 --runs 40 --export-json "$work/rg.json" \
  -n "rg -l -i refresh (the same memory files)" "rg -l -i refresh $memory_dirs"
hyperfine -N --warmup 1 --runs 10 --prepare "rm -f $work/home/index.sqlite $work/home/index.sqlite-wal $work/home/index.sqlite-shm" \
  -n "ambry compose (first run, no cache)" "$ambry compose --query '$query'"

read -r c50 c95 < <(percentiles "$work/compose.json")
read -r r50 r95 < <(percentiles "$work/rg.json")
echo
echo "N = $n, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | p50 ms | p95 ms |"
echo "|---|---|---|"
if [ -n "$baseline" ]; then
  read -r b50 b95 < <(percentiles "$work/baseline.json")
  echo "| baseline ambry compose | $b50 | $b95 |"
fi
echo "| ambry compose | $c50 | $c95 |"
echo "| rg -l | $r50 | $r95 |"
echo "ratio compose / rg -l (p50): $(jq -n "$c50 / $r50 * 100 | round / 100")"
