#!/usr/bin/env bash
# Builds Ambry's Debian package: release binaries (the app with `custom-protocol`), then the
# Tauri bundler's deb target through packaging/deb (a library call: no tauri-cli, no downloads).
# Prints the path of the .deb. Install it with `sudo apt-get install ./<that path>`.
#
# usage: scripts/package-deb.sh
#   PROFILE=debug scripts/package-deb.sh   package the debug binaries a test build already made
#                                          (target/debug; a quick check of the packaging only)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target="${CARGO_TARGET_DIR:-$PWD/target}"
profile="${PROFILE:-release}"
if [ "$profile" = release ]; then
  cargo build --release --locked -p ambry-cli >&2
  cargo build --release --locked --features custom-protocol -p ambry-app >&2
  bins="$target/release"
else
  bins="$target/debug"
fi
# The packaging tool has its own lock file and its own build folder.
CARGO_TARGET_DIR="$target/packaging" cargo run --quiet --locked --manifest-path packaging/deb/Cargo.toml -- "$bins"
