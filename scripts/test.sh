#!/usr/bin/env bash
# The whole test suite: unit and integration tests, the real `ambry` binary, the retrieval eval
# gates, the real embedding model, the real Claude Code and Codex CLIs (tests/cli/real_clients,
# against a local mock of the model APIs), and the real app window driven through WebDriver under Xvfb.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export AMBRY_TEST_MODELS="${AMBRY_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/models}"
export AMBRY_AGENT_CLIENTS="${AMBRY_AGENT_CLIENTS:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/agent-clients}"
# Each phase says how long the one before it took (the suite's time, by phase, in every run;
# the last, the app's, is timed by its own test runner).
phase_started=$SECONDS
phase() {
    echo "    (took $((SECONDS - phase_started)) s)"
    phase_started=$SECONDS
    echo "==> $*"
}
echo "==> setup (scripts/setup.sh --for test)"
scripts/setup.sh --for test
export AMBRY_TEST_CODEX="${AMBRY_TEST_CODEX:-$AMBRY_AGENT_CLIENTS/node_modules/.bin/codex}"
export PATH="$HOME/.cargo/bin:$PATH"

phase "format and lints (cargo fmt --check, clippy -D warnings)"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings

phase "the crates' shape: layers one way, front ends through the façade only, no import cycle"
python3 scripts/check-core-imports.py

phase "the UI's contract: tsc --checkJs over ui/ against the commands' Rust signatures"
scripts/check-ui.sh

phase "cargo test (workspace)"
cargo test --workspace --locked

phase "fuzz smoke: every target for a few seconds (scripts/fuzz.sh runs them longer)"
# On every machine: a missing nightly toolchain or cargo-fuzz fails the suite, naming it
# (scripts/fuzz.sh says which and how to install it), rather than pass without the smoke.
FUZZ_CORPUS_DIR="${FUZZ_CORPUS_DIR:-fuzz/corpus}" scripts/fuzz.sh 10

phase "end-to-end: the real app under Xvfb"
scripts/e2e.sh
