#!/usr/bin/env bash
# Sets up what is missing (system packages, Rust, embedding assets), builds Engram (release),
# installs it for this user like a desktop app — `engram` and `engram-app` in ~/.local/bin, a menu
# entry with icons (packaging/install-user.sh) — and launches the app. Safe to re-run.
#
# usage: scripts/run.sh [--no-launch]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
launch=1
[ "${1:-}" = "--no-launch" ] && launch=0
scripts/setup.sh --for run
export PATH="$HOME/.cargo/bin:$PATH"
target="${CARGO_TARGET_DIR:-$PWD/target}"

echo "==> building the engram CLI and the app (release; the first build takes several minutes)"
cargo build --release --locked -p engram-cli
cargo build --release --locked --features custom-protocol -p engram-app
packaging/install-user.sh "$target/release"

if [ "$launch" = 1 ]; then
  echo "==> launching Engram (next time: from your application menu, or \`engram-app\`)"
  exec "${BIN_DIR:-$HOME/.local/bin}/engram-app"
fi
