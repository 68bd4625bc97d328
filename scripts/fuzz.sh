#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ (or those named in FUZZ_TARGETS) for SECONDS_EACH seconds
# (default 60), one after another,
# with a seed corpus made from the real transcript samples and the repository's fixtures.
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`).
# Findings (crashing inputs) land in fuzz/artifacts/<target>/; the script exits non-zero on one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$HOME/.cargo/bin:$PATH"
SECONDS_EACH="${1:-60}"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "fuzz: the nightly toolchain is missing; install it with: rustup toolchain install nightly" >&2
    exit 3
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: cargo-fuzz is missing; install it with: cargo install cargo-fuzz --locked" >&2
    exit 3
fi

ALL_TARGETS=(frontmatter claude_lines codex_lines config service_protocol mcp_requests anchor_files secret_mask pair_claims)
# FUZZ_TARGETS="a b" runs only those (two shells can then share the long runs between two cores).
read -r -a TARGETS <<< "${FUZZ_TARGETS:-${ALL_TARGETS[*]}}"
# Built outside the clone, so a later run (CI's included) reuses the instrumented build.
FUZZ_TARGET_DIR="${FUZZ_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ambry/fuzz-target}"
CORPUS_ROOT="${FUZZ_CORPUS_DIR:-fuzz/corpus}"

# Seeds: one file per sample transcript and per line of it, every memory fixture, every config,
# the MCP sessions of fuzz/seeds/mcp_requests (what Claude Code and Codex send after the handshake).
seed() {
    local target="$1" dir="$CORPUS_ROOT/$1"
    mkdir -p "$dir"
    case "$target" in
        claude_lines) find src-tauri/core/tests/fixtures/formats/claude-code -name '*.jsonl' -exec cp -t "$dir" {} + ;;
        codex_lines) find src-tauri/core/tests/fixtures/formats/codex -name '*.jsonl' -exec cp -t "$dir" {} + ;;
        frontmatter) find fuzz/seeds/frontmatter src-tauri/core/tests/fixtures -name '*.md' -exec cp -t "$dir" {} + 2>/dev/null || true ;;
        config) cp -t "$dir" fuzz/seeds/config/* ;;
        service_protocol) cp -t "$dir" fuzz/seeds/service_protocol/* ;;
        mcp_requests) cp -t "$dir" fuzz/seeds/mcp_requests/* ;;
        # The first byte picks what stands where the file belongs (0 a regular file, 1 a link out,
        # 2 /dev/zero, 3 a FIFO, 4 a directory, 5 a link inside, 6 an oversized file).
        anchor_files) for k in 0 1 2 3 4 5 6; do printf "\\$(printf %03o "$k")# Team notes\nUse tabs.\n" > "$dir/kind-$k"; done ;;
        secret_mask) cp -t "$dir" src-tauri/crates/store/src/memory/secrets_corpus/*.txt fuzz/seeds/secret_mask/* ;;
        # Pairs of the review's dev set, each "description\nbody" NUL "description\nbody".
        pair_claims) cp -t "$dir" fuzz/seeds/pair_claims/* ;;
    esac
}

status=0
for target in "${TARGETS[@]}"; do
    seed "$target"
    corpus="$(cd "$CORPUS_ROOT/$target" && pwd)"  # FUZZ_CORPUS_DIR may be relative or absolute
    # A target with a dictionary (its protocol's tokens) gets it, so mutations stay near real input.
    dict=()
    if [ -f "fuzz/dicts/$target.dict" ]; then dict=(-dict="dicts/$target.dict"); fi
    echo "==> fuzz $target for ${SECONDS_EACH}s"
    if ! (cd fuzz && cargo +nightly fuzz run --sanitizer none --target-dir "$FUZZ_TARGET_DIR" "$target" "$corpus" -- \
            -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}"); then
        echo "fuzz: $target found a failing input (see fuzz/artifacts/$target/)" >&2
        status=1
    fi
done
exit $status
