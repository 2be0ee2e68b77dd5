#!/usr/bin/env bash
# Runs on the GPU machine: two builds' capture overhead side by side in one
# session, rounds alternating untraced / build A traced / build B traced on the
# same fixture program, so a collector change is told apart from the
# machine's drift (its untraced baseline moves ±20% between sessions).
# Usage: collector-ab.sh BUILD_A BUILD_B OUT_DIR
source "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || ws_die "usage: $(basename "$0") BUILD_A BUILD_B OUT_DIR"
a=$(cd "$1" && pwd) || ws_die "$1: no such build folder"
b=$(cd "$2" && pwd) || ws_die "$2: no such build folder"
out=$3; mkdir -p "$out"
fx=$b/tests/gpu/capture_fixture
ws_header
wall() { awk '/WALL_MS/{print $2}'; }
for mode in "launches 20000 7" "launches 200000 3" "large 200 3"; do
  read -r prog count rounds <<< "$mode"
  plain=(); ta=(); tb=()
  for _ in $(seq "$rounds"); do
    plain+=("$("$fx" "$prog" "$count" | wall)")
    ta+=("$("$a/app/warpscope-cli" record --db "$out/a.wsdb" --progress none -- "$a/tests/gpu/capture_fixture" "$prog" "$count" | wall)")
    tb+=("$("$b/app/warpscope-cli" record --db "$out/b.wsdb" --progress none -- "$fx" "$prog" "$count" | wall)")
  done
  python3 - "$prog $count" "${plain[*]}" "${ta[*]}" "${tb[*]}" <<'PY' || fail=1
import statistics, sys
name = sys.argv[1]
p, a, b = ([float(x) for x in s.split()] for s in sys.argv[2:5])
mp, ma, mb = statistics.median(p), statistics.median(a), statistics.median(b)
print(f"{name}: untraced median {mp:.1f} ms {p}; A {ma / mp:.3f} x {a}; B {mb / mp:.3f} x {b}; B/A {mb / ma:.3f}")
PY
done
rm -f "$out"/*.wsdb*
ws_finish
