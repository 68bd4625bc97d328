#!/usr/bin/env bash
# What a person or an agent pays for one `ambry recall "<question>"`, as a whole process, on a
# home of N indexed sessions (default 272) made from the real transcript samples in
# src-tauri/core/tests/fixtures/formats (scripts/lib/gen_sessions.py varies them into distinct
# sessions of one to eight exchanges). Four ways, each over the same questions:
#   in-process, without the model   (AMBRY_MODELS_DIR points at an empty folder)
#   in-process, with the model      (every message embedded beforehand by `sessions index`)
#   served by `ambry serve`, without the model, and with it
# Prints p50/p95 over all runs of all questions (wall time, and the CPU time hyperfine
# measured (mean user+system), which a loaded machine disturbs less), the machine's load average, and checks that
# every served answer is byte for byte the in-process one (text and --json, stdout and stderr).
# usage: scripts/bench-recall.sh [N] [MODELS_DIR] [RUNS]
#   (default 272, ~/.cache/ambry/models, 15 runs per question; needs hyperfine and python3)
# BENCH_RECALL_EACH=1 also prints each question's p50. AMBRY_BIN=path measures a binary already built (e.g. an older one, for before/after);
# otherwise the release CLI is built. The served rows need a build with served recall; with an
# older binary they measure its in-process path (it never asks the service).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n="${1:-272}"
models="${2:-$HOME/.cache/ambry/models}"
runs="${3:-15}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
bin="${AMBRY_BIN:-$target/release/ambry}"
[ -n "${AMBRY_BIN:-}" ] || cargo build --release --locked -q -p ambry-cli
work="$(mktemp -d)"
server=""
stop_server() {
  # Only the service this script started, by its pid.
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    while kill -0 "$server" 2>/dev/null; do sleep 0.05; done
    server=""
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

mkdir -p "$work/fakehome" "$work/no-models" "$work/repo"
# Only the generated transcripts are read: no real agent sessions of this machine.
export HOME="$work/fakehome" CLAUDE_CONFIG_DIR="$work/claude" CODEX_HOME="$work/codex"
export AMBRY_SERVICE_AUTOSTART=0
unset AMBRY_HOME AMBRY_NO_SERVICE
python3 scripts/lib/gen_sessions.py src-tauri/core/tests/fixtures/formats "$CLAUDE_CONFIG_DIR" "$CODEX_HOME" "$n"
ambry="$bin --home $work/home --cwd $work/repo"
# Indexed, and every message embedded, before measuring (as after a day of the app running).
AMBRY_MODELS_DIR="$models" $ambry sessions index | head -1

questions=(
  "redis cache eviction"
  "why did the canary deploy get stuck?"
  "mix phx.server"
  "assets/js/app.js"
  '"refresh token" OR webhook'
  "the container was killed for using too much RAM when booting"
  "spreadsheet shows weird characters in exported people names"
  "when did we last fix the flaky login test"
)

measure() { # label models_dir
  local label=$1 dir=$2 i=0
  for q in "${questions[@]}"; do
    i=$((i + 1))
    local quoted=${q//\'/\'\\\'\'}
    AMBRY_MODELS_DIR="$dir" hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/$label.$i.json" \
      "$ambry recall '$quoted'" >/dev/null 2>&1
  done
  python3 - "$label" "$work"/"$label".*.json <<'PY'
import json, os, sys
wall, cpu, rows = [], [], []
for f in sorted(sys.argv[2:], key=lambda f: int(f.rsplit(".", 2)[-2])):
    r = json.load(open(f))["results"][0]
    t = sorted(x * 1000 for x in r["times"])
    rows.append(f'    {t[len(t) // 2]:7.1f} ms wall p50  {(r["user"] + r["system"]) * 1000:6.1f} ms cpu  {r["command"].split(" recall ", 1)[1]}')
    wall += [t * 1000 for t in r["times"]]
    # hyperfine reports CPU time as a mean per command, not per run.
    cpu += [(r["user"] + r["system"]) * 1000] * len(r["times"])
def p(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]
print(f"{sys.argv[1]:<24} wall p50 {p(wall, .5):7.1f} ms  p95 {p(wall, .95):7.1f} ms   "
      f"cpu (user+sys) mean {sum(cpu) / len(cpu):7.1f} ms   (n={len(wall)})")
if os.environ.get("BENCH_RECALL_EACH") == "1":
    print("\n".join(rows))
PY
}

serve() { # models_dir
  AMBRY_MODELS_DIR="$1" $ambry serve >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 1 300); do
    AMBRY_MODELS_DIR="$1" $ambry serve --status >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "the service did not start:"; cat "$work/serve.log"; exit 1
}

# Served and in-process answers are the same bytes, for every question, as text and as JSON.
same=0
compare() { # models_dir
  for q in "${questions[@]}"; do
    for json in "" --json; do
      local served inproc
      served=$(AMBRY_MODELS_DIR="$1" AMBRY_LOG=ambry::recall_client=debug $ambry $json recall "$q" 2>"$work/served.err"; echo "exit $?")
      grep -q "recall served by: service" "$work/served.err" || {
        echo "not served: $q $json"; same=1
      }
      served+=$(grep -v "served by" "$work/served.err" || true)
      inproc=$(AMBRY_MODELS_DIR="$1" AMBRY_NO_SERVICE=1 $ambry $json recall "$q" 2>&1; echo "exit $?")
      if [ "$served" != "$inproc" ]; then
        echo "FAIL: served and in-process answers differ for $q $json:"
        diff <(printf '%s\n' "$inproc") <(printf '%s\n' "$served") | head -20 || true
        same=1
      fi
    done
  done
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
AMBRY_NO_SERVICE=1 measure "in-process, no model" "$work/no-models"
AMBRY_NO_SERVICE=1 measure "in-process, model" "$models"
serve "$work/no-models"
measure "served, no model" "$work/no-models"
[ "${BENCH_RECALL_COMPARE:-1}" = 0 ] || compare "$work/no-models"
stop_server
serve "$models"
measure "served, model" "$models"
[ "${BENCH_RECALL_COMPARE:-1}" = 0 ] || compare "$models"
stop_server
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "${BENCH_RECALL_COMPARE:-1}" = 0 ] || { [ $same = 0 ] && echo "served answers identical to in-process for ${#questions[@]} questions (text and --json)"; }
exit $same
