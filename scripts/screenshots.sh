#!/usr/bin/env bash
# Retakes the README's screenshots (docs/screenshots/*.png) from the real app on a home seeded by
# scripts/demo-home.sh. Look at every picture before committing it.
#   scripts/screenshots.sh [OUT_DIR]   (default docs/screenshots)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-docs/screenshots}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
export PATH="$HOME/.cargo/bin:$PATH" NO_AT_BRIDGE=1
# The debug binaries of the test build (as scripts/e2e.sh): no second compile of the tauri stack.
cargo test --workspace --locked --no-run
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scripts/demo-home.sh "$work" "$target/debug/ambry" >/dev/null
# With the model the pictures show what most people see: semantic ranking, no fallback note.
models="${AMBRY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/models}"
if [ -f "$models/all-MiniLM-L6-v2/model.onnx" ]; then
  ln -s "$models" "$work/home/models"
  "$target/debug/ambry" --home "$work/home" --cwd "$work/ledger" memory reindex >/dev/null
fi
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
  python3 scripts/screenshots.py "$target/debug/ambry-app" "$work/home" "$out"
