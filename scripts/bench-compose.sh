#!/usr/bin/env bash
# Whole-process cost of `engram compose` (what an agent pays every turn) at N memories, against
# `rg -l -i WORD` over the same memory directory (the time to merely scan the files).
# usage: scripts/bench-compose.sh [N]   (default 10000; needs hyperfine and ripgrep)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n="${1:-10000}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release -q -p engram-cli
cargo build --release -q -p engram-core --example gen_memories
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$target/release/examples/gen_memories" "$work" "$n"
engram="$target/release/engram --home $work/home --cwd $work/repo"
query="why does the refresh token cache break after a canary deploy?"
$engram compose --query "$query" >/dev/null   # warms index.sqlite, as any earlier turn would
hyperfine -N --warmup 3 --runs 30 --export-markdown "$work/result.md" \
  -n "engram compose (bm25, warm index.sqlite)" "$engram compose --query '$query'" \
  -n "rg -l -i refresh" "rg -l -i refresh $work/home/memory"
hyperfine -N --warmup 1 --runs 10 --prepare "rm -f $work/home/index.sqlite $work/home/index.sqlite-wal $work/home/index.sqlite-shm" \
  -n "engram compose (first run, no cache)" "$engram compose --query '$query'"
cat "$work/result.md"
