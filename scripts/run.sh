#!/usr/bin/env bash
# Sets up what is missing (system packages, Rust, embedding assets), builds Ambry (release),
# installs it for this user like a desktop app — `ambry` and `ambry-app` in ~/.local/bin, a menu
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

echo "==> building the ambry CLI and the app (release; the first build takes several minutes)"
cargo build --release --locked -p ambry-cli
cargo build --release --locked --features custom-protocol -p ambry-app
packaging/install-user.sh "$target/release"

if [ "$launch" = 1 ]; then
  echo "==> launching Ambry (next time: from your application menu, or \`ambry-app\`)"
  exec "${BIN_DIR:-$HOME/.local/bin}/ambry-app"
fi
