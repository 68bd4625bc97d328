#!/usr/bin/env bash
# Checks the UI's JavaScript with tsc (ui/tsconfig.json) against the shell's contract,
# ui/ipc.d.ts (generated from the commands' Rust signatures; `cargo test` fails while it is
# stale): every call(…) must name a registered command with the arguments it takes. Then shows
# the check has teeth: the same UI with one argument renamed must fail it.
# Needs TypeScript, which `scripts/setup.sh --for test` installs (AMBRY_TYPESCRIPT overrides).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ts_dir="${AMBRY_TYPESCRIPT:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/typescript}"
tsc="$ts_dir/node_modules/.bin/tsc"
if [ ! -x "$tsc" ]; then
    echo "check-ui: TypeScript is missing from $ts_dir; install it with: scripts/setup.sh --for test" >&2
    exit 1
fi
"$tsc" -p ui/tsconfig.json

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp ui/*.js ui/*.d.ts ui/tsconfig.json "$tmp/"
# The agents card's dry run, with its argument spelled as Rust spells it rather than as sent.
sed -i 's/dryRun: true, trust: true/dry_run: true, trust: true/' "$tmp/agents.js"
grep -q "dry_run: true" "$tmp/agents.js" || { echo "check-ui: the renamed argument was not written" >&2; exit 1; }
if "$tsc" -p "$tmp/tsconfig.json" >"$tmp/out" 2>&1; then
    echo "check-ui: a call with a renamed argument passed tsc" >&2
    exit 1
fi
grep -q "dry_run" "$tmp/out" || { cat "$tmp/out" >&2; echo "check-ui: tsc failed for another reason" >&2; exit 1; }
echo "check-ui: ui/ keeps the shell's contract (and a renamed argument breaks it)"
