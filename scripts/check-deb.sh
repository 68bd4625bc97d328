#!/usr/bin/env bash
# Checks a built .deb the way a person installs it: `apt-get install ./ambry_….deb`, lists what
# it put where, validates the menu entry, starts the app from that entry (its Exec= line, as a
# launcher does) on a private display and photographs the screen, runs `ambry --version` from
# PATH, then removes the package and shows that none of its files is left behind.
# Needs root (it installs system-wide), Xvfb and a session bus; run it on a machine you may
# install on.
#   usage: scripts/check-deb.sh PATH/TO/ambry_<version>_<arch>.deb [SCREENSHOT.png]
# The inner part runs under xvfb-run + dbus-run-session (the script re-runs itself there).
set -euo pipefail
deb=${1:?usage: check-deb.sh PATH/TO/ambry.deb [SCREENSHOT.png]}
shot=${2:-$PWD/deb-launch.png}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ -z "${AMBRY_CHECK_DEB_INNER:-}" ]; then
  deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
  export AMBRY_CHECK_DEB_INNER=1 NO_AT_BRIDGE=1
  exec xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- "$0" "$deb" "$shot"
fi

package=$(dpkg-deb -f "$deb" Package)
echo "== install $package from $deb"
apt-get install -y "$deb" >/dev/null
dpkg -L "$package" | grep -v '/$' | sort > /tmp/ambry-deb-files.txt
echo "== files"
while read -r f; do [ -d "$f" ] || echo "  $f"; done < /tmp/ambry-deb-files.txt

entry=$(grep '^/usr/share/applications/.*\.desktop$' /tmp/ambry-deb-files.txt | head -1)
[ -n "$entry" ] || { echo "no menu entry in the package" >&2; exit 1; }
echo "== menu entry $entry"
desktop-file-validate "$entry" && echo "  valid"
exec_line=$(sed -n 's/^Exec=//p' "$entry" | head -1)
icon=$(sed -n 's/^Icon=//p' "$entry" | head -1)
echo "  Exec=$exec_line Icon=$icon"
grep -q "/usr/share/icons/hicolor/.*/apps/$icon.png" /tmp/ambry-deb-files.txt && echo "  icon installed"

echo "== ambry --version from PATH: $(command -v ambry)"
ambry --version

echo "== start from the entry (Exec=$exec_line) on a fresh home"
home=$(mktemp -d)
# Field codes (%u, %f, …) expand to nothing without arguments, as a launcher does.
read -r -a argv <<< "$(sed 's/%[a-zA-Z]//g' <<< "$exec_line")"
AMBRY_HOME="$home/.ambry" HOME="$home" "${argv[@]}" >"$home/app.log" 2>&1 &
app=$!
window=""
for _ in $(seq 1 150); do
  window=$(xdotool search --onlyvisible --name '^Ambry$' 2>/dev/null | head -1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "no window titled Ambry appeared" >&2; cat "$home/app.log" >&2; kill "$app"; exit 1; }
echo "  window $window: $(xdotool getwindowgeometry "$window" | tr '\n' ' ')"
sleep 3 # the first view renders
python3 "$here/lib/screen_png.py" "$shot"
echo "  screenshot: $shot"
kill "$app"
wait "$app" 2>/dev/null || true

echo "== remove $package"
apt-get remove -y "$package" >/dev/null
echo "  dpkg says: $(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null || echo 'not installed')"
left=0
while read -r f; do
  if [ -e "$f" ] && [ ! -d "$f" ]; then echo "  left behind: $f"; left=1; fi
done < /tmp/ambry-deb-files.txt
hash -r
command -v ambry ambry-app >/dev/null && { echo "  still on PATH: $(command -v ambry ambry-app)"; left=1; }
[ "$left" = 0 ] && echo "  nothing of the package is left"
rm -rf "$home"
exit "$left"
