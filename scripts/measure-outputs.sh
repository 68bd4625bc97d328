#!/usr/bin/env bash
# Records what `ambry compose --json`, `ambry memory search --json` and `ambry recall --json`
# print on one seeded home, so a refactor that must not change behaviour can be checked with
# `cmp` against the same outputs before it:
#   scripts/measure-outputs.sh OUT_DIR [AMBRY_BIN]
#   cmp -s before/compose-refresh.json after/compose-refresh.json ...  (or: diff -r before after)
# The home is seeded by scripts/demo-home.sh at one fixed path, with every memory's created and
# updated times rewritten to fixed values and HOME pointed at an empty directory (so no real
# agent transcripts are read). Two variants: without models (keyword/BM25 only) and, when
# AMBRY_TEST_MODELS is set, with the embedding model and runtime linked into the home.
set -euo pipefail
out=${1:?usage: measure-outputs.sh OUT_DIR [AMBRY_BIN]}
ambry=${2:-${CARGO_TARGET_DIR:-target}/release/ambry}
ambry=$(cd "$(dirname "$ambry")" && pwd)/$(basename "$ambry")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
# One fixed path: paths (and the project slug derived from them) appear in the outputs.
seed=${AMBRY_MEASURE_SEED:-/tmp/ambry-measure-outputs}
# `ambry compose` starts a compose service for its home; one left from an earlier run must not
# answer this run (it would be the other binary).
stop_service() {
  local pid
  pid=$("$ambry" --home "$seed/home" --json serve --status 2>/dev/null | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' || true)
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
}
stop_service
rm -rf "$seed"
mkdir -p "$seed/fakehome"
export HOME="$seed/fakehome"
unset CLAUDE_CONFIG_DIR CODEX_HOME XDG_CONFIG_HOME AMBRY_HOME
bash "$here/demo-home.sh" "$seed" "$ambry" >/dev/null
export AMBRY_HOME="$seed/home"
# Fixed times, so the outputs do not depend on when the seed ran.
find "$AMBRY_HOME" -name '*.md' -path '*memory*' -print0 | while IFS= read -r -d '' f; do
  sed -i -E 's/^created: .*/created: 2026-11-01T10:00:00Z/; s/^updated: .*/updated: 2026-11-02T10:00:00Z/' "$f"
done
repo="$seed/ledger"

run() { # name args...
  local name=$1
  shift
  (cd "$repo" && "$ambry" --json "$@") >"$out/$name.json" 2>"$out/$name.stderr" || echo "exit $?" >>"$out/$name.stderr"
}

measure() { # prefix
  local p=$1
  run "$p-compose-refresh" compose --query "two tabs refreshing the token at once log the user out"
  run "$p-compose-deploy" compose --query "how do I promote the release to prod"
  run "$p-compose-empty" compose --query ""
  run "$p-search-refresh" memory search "token refresh race"
  run "$p-search-commits" memory search "small commits" --scope all
  run "$p-search-bm25" memory search "postgres tests mock" --strategy bm25
  run "$p-recall-refresh" recall "refresh token"
  run "$p-recall-canary" recall "canary dashboard" --project "$seed"
  run "$p-recall-none" recall "nothing matches zyzzyva"
}

measure nomodel
if [ -n "${AMBRY_TEST_MODELS:-}" ]; then
  ln -s "$AMBRY_TEST_MODELS" "$AMBRY_HOME/models"
  (cd "$repo" && "$ambry" reindex >/dev/null 2>&1) || true
  measure model
fi
stop_service
ls "$out" | wc -l
