#!/usr/bin/env bash
# Installs what Ambry needs on a Debian/Ubuntu machine, skipping whatever is already there:
# system packages (WebKitGTK, GTK, tray, Xvfb and WebDriver for tests), a Rust toolchain,
# tauri-driver (tests only), the embedding assets (ONNX Runtime + all-MiniLM-L6-v2), and for
# tests the real agent clients (pinned Claude Code and Codex CLIs from npm).
#
# usage: scripts/setup.sh [--for run|test]
#   run  (default): what the app and CLI need; models go to $AMBRY_HOME/models (~/.ambry/models)
#   test: also Xvfb, WebDriver, tauri-driver; models go to the test asset cache
set -euo pipefail

purpose=run
[ "${1:-}" = "--for" ] && purpose="${2:-run}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
say() { printf '\033[1m==>\033[0m %s\n' "$*"; }

# --- system packages -----------------------------------------------------------------------
packages=(make libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
  libssl-dev build-essential pkg-config file curl ca-certificates python3 python3-pip git
  desktop-file-utils)
if [ "$purpose" = test ]; then
  packages+=(xvfb xauth webkit2gtk-driver xdotool trayer dbus-daemon dbus-x11 ripgrep libgtk-3-bin)
  # The real agent clients run on Node; a node already on PATH (e.g. from nvm) is used as is.
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing system packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  say "system packages: present"
fi

# --- Rust toolchain ------------------------------------------------------------------------
if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    say "installing the Rust toolchain (rustup)"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
fi
say "rust: $(rustc --version)"
# The test suite checks formatting and lints; a minimal rustup profile has neither tool.
if [ "$purpose" = test ] && { ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; }; then
  say "installing rustfmt and clippy"
  rustup component add rustfmt clippy
fi

# --- tauri-driver (end-to-end tests drive the real window through it) -----------------------
if [ "$purpose" = test ] && ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
  say "installing tauri-driver"
  cargo install tauri-driver --locked --version '^2.1'
fi

# --- cargo-fuzz (the test suite runs a short smoke of every fuzz target on the nightly toolchain)
if [ "$purpose" = test ] && rustup run nightly rustc --version >/dev/null 2>&1 \
    && ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  say "installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

# --- embedding assets ----------------------------------------------------------------------
if [ "$purpose" = test ]; then
  models_dir="${AMBRY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/models}"
else
  models_dir="${AMBRY_HOME:-$HOME/.ambry}/models"
fi
"$here/fetch-models.sh" "$models_dir"

# --- the real agent clients (tests drive them against a local mock of the model APIs) -------
# Pinned: the tests assert what these exact versions do with a hook's output and MCP tools.
# scripts/test.sh exports AMBRY_AGENT_CLIENTS pointing here.
if [ "$purpose" = test ]; then
  claude_version=2.1.197
  codex_version=0.169.0
  clients_dir="${AMBRY_AGENT_CLIENTS:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/agent-clients}"
  installed_version() { # package -> version installed in $clients_dir, or nothing
    node -p "require('$clients_dir/node_modules/$1/package.json').version" 2>/dev/null || true
  }
  if [ "$(installed_version @anthropic-ai/claude-code)" = "$claude_version" ] \
      && [ "$(installed_version @openai/codex)" = "$codex_version" ] \
      && [ -x "$clients_dir/node_modules/.bin/claude" ] && [ -x "$clients_dir/node_modules/.bin/codex" ]; then
    say "agent clients: Claude Code $claude_version, Codex $codex_version present"
  else
    say "installing agent clients into $clients_dir: Claude Code $claude_version, Codex $codex_version"
    mkdir -p "$clients_dir"
    npm install --prefix "$clients_dir" --no-audit --no-fund --save-exact \
      "@anthropic-ai/claude-code@$claude_version" "@openai/codex@$codex_version"
  fi
fi

# --- TypeScript, to check the UI's JavaScript against the shell's contract (ui/ipc.d.ts) ------
# A dev tool only: the UI ships as plain ES modules. scripts/check-ui.sh finds it here.
if [ "$purpose" = test ]; then
  typescript_version=5.9.3
  ts_dir="${AMBRY_TYPESCRIPT:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/typescript}"
  if [ "$(node -p "require('$ts_dir/node_modules/typescript/package.json').version" 2>/dev/null || true)" = "$typescript_version" ]; then
    say "TypeScript $typescript_version present"
  else
    say "installing TypeScript $typescript_version into $ts_dir"
    mkdir -p "$ts_dir"
    npm install --prefix "$ts_dir" --no-audit --no-fund --save-exact "typescript@$typescript_version"
  fi
fi
