#!/usr/bin/env bash
# What a served UserPromptSubmit turn costs when the payload names a long transcript (DESIGN §5:
# the turn reads its tail for the last exchange). N memories (default 10000, each with a random
# unit vector of the model's size: the scan costs what real vectors cost), a Claude Code
# transcript of TRANSCRIPT_MB (default 10), the self-started compose service, and each turn a
# fresh `ambry compose --hook claude` as the agent runs it. Three kinds of turn, timed apart:
# a prompt that says what it wants (no transcript, then with it) and one that refers back (its
# exchange is ranked too). A turn that refers back comes, as in a conversation, right after the
# turn of the prompt it refers to (that turn untimed). The kinds take turns, so a passing load
# weighs on each alike.
# usage: scripts/bench-compose-transcript.sh [N] [MODELS_DIR]   (env: TRANSCRIPT_MB, RUNS)
# Only the release CLI is built (AMBRY_BIN=path uses one already built); the generator is the
# core's dev-profile example.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n="${1:-10000}"
models="${2:-$HOME/.cache/ambry/models}"
mb="${TRANSCRIPT_MB:-10}"
runs="${RUNS:-40}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
bin="${AMBRY_BIN:-$target/release/ambry}"
[ -n "${AMBRY_BIN:-}" ] || cargo build --release --locked -q -p ambry-cli
[ -x "$target/debug/examples/gen_memories" ] || cargo build --locked -q -p ambry-core --example gen_memories
work="$(mktemp -d)"
server=""
cleanup() {
  # The self-started service of this throwaway home, by the pid it reported.
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
export AMBRY_MODELS_DIR="$models"
"$target/debug/examples/gen_memories" "$work" "$n" "all-MiniLM-L6-v2"
ambry="$bin --home $work/home --cwd $work/repo"
AMBRY_NO_SERVICE=1 $ambry compose --query "warm the index" >/dev/null
$ambry compose --query "start the service" >/dev/null
for _ in $(seq 1 300); do $ambry serve --status >/dev/null 2>&1 && break; sleep 0.1; done
server=$($ambry --json serve --status | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')

python3 - "$work" "$bin" "$mb" "$runs" <<'PY'
import json, os, statistics, subprocess, sys, time
work, bin_, mb, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
transcript = os.path.join(work, "transcript.jsonl")
def line(kind, text):
    return json.dumps({"type": kind, "sessionId": "bench", "timestamp": "2026-06-01T00:00:00Z",
                       "message": {"role": kind, "content": [{"type": "text", "text": text}]}}) + "\n"
previous = "bump the api's connection pool to 50 and the refresh token cache ttl"
with open(transcript, "w") as f:
    filler = line("assistant", "tool output and long answers " * 200)
    while f.tell() < mb * 1024 * 1024:
        f.write(line("user", "why does the refresh token cache break after a canary deploy?"))
        f.write(filler)
    f.write(line("user", previous))
    f.write(line("assistant", "Done: the api's pool is 50 and the cache ttl is 10 minutes."))
size = os.path.getsize(transcript)
cmd = [bin_, "--home", f"{work}/home", "--cwd", f"{work}/repo", "compose", "--hook", "claude"]
def turn(session, prompt, with_transcript):
    payload = {"session_id": session, "cwd": f"{work}/repo", "hook_event_name": "UserPromptSubmit",
               "prompt": prompt}
    if with_transcript:
        payload["transcript_path"] = transcript
    t = time.perf_counter()
    out = subprocess.run(cmd, input=json.dumps(payload).encode(), capture_output=True)
    elapsed = (time.perf_counter() - t) * 1000
    assert out.returncode == 0, out.stderr
    return elapsed
kinds = [
    ("clear prompt, no transcript", "why does the refresh token cache break after a canary deploy?", False),
    ("clear prompt, 10 MB transcript", "why does the refresh token cache break after a canary deploy?", True),
    ("refers back, 10 MB transcript", "do the same for the worker", True),
]
print(f"{size / 1e6:.1f} MB transcript, {runs} turns each (each a fresh `ambry compose --hook claude`, served)")
for i, (label, prompt, with_t) in enumerate(kinds):
    for w in range(3):
        turn(f"warm-{i}-{w}", prompt, with_t)
# Round robin: a load that comes and goes (a shared machine) weighs on every kind alike.
times = [[] for _ in kinds]
for r in range(runs):
    for i, (_, prompt, with_t) in enumerate(kinds):
        if prompt == kinds[-1][1]:
            # The prompt it refers back to was a turn of this session a moment before.
            turn(f"s-{i}-{r}", previous, False)
        # Every timed prompt is new to the service, as a person's next prompt is.
        times[i].append(turn(f"s-{i}-{r}", f"{prompt} (take {r}.{i})", with_t))
for (label, _, _), t in zip(kinds, times):
    t.sort()
    p = lambda q: t[min(len(t) - 1, round(q * (len(t) - 1)))]
    print(f"{label:<34} p50 {p(0.5):6.1f} ms   p95 {p(0.95):6.1f} ms   min {t[0]:6.1f} ms")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
