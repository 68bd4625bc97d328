#!/usr/bin/env bash
# Installs built Ambry binaries for the current user, like a desktop app: `ambry` and
# `ambry-app` in BIN_DIR (~/.local/bin), the menu entry in DATA_DIR/applications and the icons
# in DATA_DIR/icons/hicolor (DATA_DIR: $XDG_DATA_HOME or ~/.local/share). The entry is checked
# with desktop-file-validate. Safe to re-run; it replaces only Ambry's own files.
#
# usage: packaging/install-user.sh RELEASE_DIR   (the folder holding the built ambry, ambry-app)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
release="${1:?usage: install-user.sh RELEASE_DIR}"
bin_dir="${BIN_DIR:-$HOME/.local/bin}"
data_dir="${DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}}"
entry=dev.ambry.app.desktop

for b in ambry ambry-app; do
  [ -x "$release/$b" ] || { echo "install-user: $release/$b is missing; build it first" >&2; exit 1; }
done
mkdir -p "$bin_dir" "$data_dir/applications"
install -m 755 "$release/ambry" "$bin_dir/ambry"
install -m 755 "$release/ambry-app" "$bin_dir/ambry-app"

for size in 32x32 128x128 256x256; do
  src="$here/../icons/$size.png"
  [ "$size" = 256x256 ] && src="$here/../icons/icon.png"
  install -D -m 644 "$src" "$data_dir/icons/hicolor/$size/apps/ambry-app.png"
done

# The menu may not have ~/.local/bin on its PATH: the entry names the binary by its full path.
case "$bin_dir" in *[[:space:]]*) exec_path="\"$bin_dir/ambry-app\"";; *) exec_path="$bin_dir/ambry-app";; esac
sed -e "s|^Exec=ambry-app\$|Exec=$exec_path|" -e "s|^TryExec=ambry-app\$|TryExec=$bin_dir/ambry-app|" \
  "$here/$entry" > "$data_dir/applications/.$entry"   # hidden until it validates
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$data_dir/applications/.$entry" || { rm -f "$data_dir/applications/.$entry"; exit 1; }
else
  echo "install-user: desktop-file-validate not found (Debian: desktop-file-utils); entry not validated" >&2
fi
mv "$data_dir/applications/.$entry" "$data_dir/applications/$entry"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$data_dir/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$data_dir/icons/hicolor" 2>/dev/null || true

echo "==> installed ambry and ambry-app to $bin_dir"
echo "==> menu entry: $data_dir/applications/$entry (icons in $data_dir/icons/hicolor)"
case ":$PATH:" in *":$bin_dir:"*) ;; *) echo "    (add $bin_dir to PATH to call \`ambry\` from a shell)";; esac
