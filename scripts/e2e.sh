#!/usr/bin/env bash
# End-to-end tests of the real app: WebKit window under Xvfb, driven by tauri-driver +
# WebKitWebDriver, inside a private D-Bus session (the tray needs one; trayer hosts it).
# Screenshots of failures land in <target>/e2e-screenshots/ (AMBRY_E2E_SCREENSHOTS=all: every test).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH" NO_AT_BRIDGE=1
export AMBRY_TEST_MODELS="${AMBRY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/models}"
for tool in tauri-driver WebKitWebDriver xvfb-run dbus-run-session trayer xdotool git; do
  command -v "$tool" >/dev/null || { echo "e2e: $tool is missing; run scripts/setup.sh --for test" >&2; exit 1; }
done
# The tests seed homes and change memories behind the app's back with the real `ambry` binary,
# which the workspace's test build makes. The e2e binary of that very build is run directly:
# any other selection (`-p …`, or even `--test e2e`, which leaves the other crates'
# dev-dependencies out of feature resolution) builds the tauri stack and every crate over it in
# a second configuration.
e2e_binary="$(cargo test --workspace --locked --no-run --message-format=json-render-diagnostics |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "e2e" and m.get("executable"):
        print(m["executable"])
')"
[ -x "$e2e_binary" ] || { echo "e2e: the workspace build made no e2e test binary" >&2; exit 1; }
# As `cargo test` would run it: from the app's package root, which is this directory, and with
# CARGO_MANIFEST_DIR naming it (the binary may come from a cache built in another checkout).
export CARGO_MANIFEST_DIR="$PWD"
exec xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
  "$e2e_binary" --include-ignored --test-threads=1 "$@"
