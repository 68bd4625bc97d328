#!/usr/bin/env bash
# The app's targets, measured on the release build through its real window: first paint, idle
# memory, and search keystroke → results, at N synthetic memories (default 10000), once ranked
# with bm25 (no model) and once with the model and a sidecar per memory.
#   scripts/measure-app.sh [N]
# Prints numbers; asserts nothing (times depend on the machine). Needs what scripts/e2e.sh needs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n="${1:-10000}"
target="${CARGO_TARGET_DIR:-$PWD/target}"
models="${AMBRY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/models}"
export PATH="$HOME/.cargo/bin:$PATH" NO_AT_BRIDGE=1
# Built exactly as scripts/run.sh builds them, so one release cache serves both.
cargo build --release --locked -p ambry-cli
cargo build --release --locked --features custom-protocol -p ambry-app
cargo build --release --locked -p ambry-core --example gen_memories
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$target/release/examples/gen_memories" "$work/bm25" "$n"
homes=("bm25, $n memories=$work/bm25/home")
if [ -f "$models/all-MiniLM-L6-v2/model.onnx" ]; then
  "$target/release/examples/gen_memories" "$work/semantic" "$n" all-MiniLM-L6-v2
  ln -s "$models" "$work/semantic/home/models"
  homes+=("auto (model + $n sidecars), $n memories=$work/semantic/home")
else
  echo "no model under $models (scripts/fetch-models.sh $models): measuring bm25 only" >&2
fi
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
  python3 scripts/measure-app.py "$target/release/ambry-app" "${homes[@]}"
