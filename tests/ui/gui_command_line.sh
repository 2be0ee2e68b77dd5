#!/usr/bin/env bash
# The GUI's command line: --help and --version answer without a display, and
# a mistyped --db is refused (exit 1, nothing created at the typo), and so
# are a bad --window or --table.
# Usage: gui_command_line.sh WARPSCOPE_BINARY
set -uo pipefail
gui=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # WHAT CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
out=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$gui" --version 2>&1); rc=$?
check "--version without a display exits 0 ($rc)" test "$rc" -eq 0
check "--version prints the version ($out)" grep -q "^Warpscope [0-9]" <<< "$out"
out=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$gui" --help 2>&1); rc=$?
check "--help without a display exits 0 ($rc)" test "$rc" -eq 0
check "--help names the headless commands" grep -q "warpscope export-charts" <<< "$out"
out=$(QT_QPA_PLATFORM=offscreen "$gui" --db "$tmp/typo/runs.wsdb" 2>&1); rc=$?
check "a missing --db exits 1 ($rc)" test "$rc" -eq 1
check "a missing --db says so ($out)" grep -q "runs.wsdb: no such store" <<< "$out"
check "nothing is created at the typo" test ! -e "$tmp/typo"
out=$(QT_QPA_PLATFORM=offscreen "$gui" --window 5s:1s 2>&1); rc=$?
check "a --window ending before it begins exits 1 ($rc)" test "$rc" -eq 1
check "and says why ($out)" grep -q "ends before it begins" <<< "$out"
out=$(QT_QPA_PLATFORM=offscreen "$gui" --table flops 2>&1); rc=$?
check "an unknown --table exits 1 ($rc)" test "$rc" -eq 1
check "and names the tables ($out)" grep -q "none of kernels, ranges, api, copies, diff" <<< "$out"
exit $fail
