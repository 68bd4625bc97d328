#!/usr/bin/env bash
# The whole test suite: unit and integration tests, the real `engram` binary, the retrieval eval
# gates, the real embedding model, and the real app window driven through WebDriver under Xvfb.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ENGRAM_TEST_MODELS="${ENGRAM_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/engram/models}"
scripts/setup.sh --for test
export PATH="$HOME/.cargo/bin:$PATH"

echo "==> cargo test (workspace)"
cargo test --workspace --locked

echo "==> end-to-end: the real app under Xvfb"
scripts/e2e.sh
