#!/usr/bin/env bash
# Sets up what is missing (system packages, Rust, embedding assets), builds Engram, puts the
# `engram` command on PATH (~/.local/bin) and launches the desktop app. Safe to re-run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh --for run
export PATH="$HOME/.cargo/bin:$PATH"
target="${CARGO_TARGET_DIR:-$PWD/target}"
bin_dir="${BIN_DIR:-$HOME/.local/bin}"

echo "==> building the engram CLI and the app (release; the first build takes several minutes)"
cargo build --release --locked -p engram-cli
cargo build --release --locked --features custom-protocol -p engram-app
mkdir -p "$bin_dir"
install -m 755 "$target/release/engram" "$bin_dir/engram"
echo "==> engram installed to $bin_dir/engram"
case ":$PATH:" in *":$bin_dir:"*) ;; *) echo "    (add $bin_dir to PATH to call it as \`engram\`)";; esac

echo "==> launching Engram"
exec "$target/release/engram-app"
