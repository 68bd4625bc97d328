#!/usr/bin/env bash
# End-to-end tests of the real app: WebKit window under Xvfb, driven by tauri-driver +
# WebKitWebDriver, inside a private D-Bus session (the tray needs one).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH" NO_AT_BRIDGE=1
for tool in tauri-driver WebKitWebDriver xvfb-run dbus-run-session; do
  command -v "$tool" >/dev/null || { echo "e2e: $tool is missing; run scripts/setup.sh --for test" >&2; exit 1; }
done
exec xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- \
  cargo test --locked -p engram-app --test e2e -- --include-ignored --test-threads=1 "$@"
