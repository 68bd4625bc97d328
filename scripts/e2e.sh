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
# which the workspace's test build makes. Same selection as scripts/test.sh (`--workspace`,
# test profile): another (`-p …`) unifies dependency features differently and would compile the
# whole tauri stack a second time.
cargo test --workspace --locked --no-run
exec xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
  cargo test --workspace --locked --test e2e -- --include-ignored --test-threads=1 "$@"
