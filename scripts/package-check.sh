#!/usr/bin/env bash
# Builds the Debian package from the release preset, installs it, and checks
# the installed programs: warpscope-cli --version, a store listing, and an
# offscreen start of the GUI on the bundled sample runs. Removes it after.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
(cd build/release && cpack -G DEB >/dev/null)
deb=$(ls -t build/release/warpscope_*.deb | head -1)
echo "== package $deb"
dpkg-deb --info "$deb" | grep -E "Package|Version|Depends"
"${sudo_cmd[@]}" apt-get install -y -qq "./$deb" >/dev/null
trap '"${sudo_cmd[@]}" apt-get remove -y -qq warpscope >/dev/null || true' EXIT
test -x /usr/bin/warpscope && test -x /usr/bin/warpscope-cli
test -f /usr/share/applications/warpscope.desktop
test -f /usr/share/icons/hicolor/256x256/apps/warpscope.png
test -f /usr/share/man/man1/warpscope-cli.1 || test -f /usr/share/man/man1/warpscope-cli.1.gz
/usr/bin/warpscope-cli --version
env -u DISPLAY /usr/bin/warpscope --version  # answers without a display
/usr/bin/warpscope-workload --help | grep -q "serve"  # built in every build (serve --backend cpu)
tmp=$(mktemp -d)
cp /usr/share/warpscope/samples/h200-captures.wsdb "$tmp/"
/usr/bin/warpscope-cli ls --db "$tmp/h200-captures.wsdb" | head -3
QT_QPA_PLATFORM=offscreen timeout 60 /usr/bin/warpscope --db "$tmp/h200-captures.wsdb" \
  --select 1 --screenshot "$tmp/installed.png" 2>/dev/null
test -s "$tmp/installed.png"
echo "package-check: installed package works (screenshot $(stat -c %s "$tmp/installed.png") bytes)"
rm -rf "$tmp"
