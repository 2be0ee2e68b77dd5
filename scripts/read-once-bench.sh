#!/usr/bin/env bash
# Issue 46's reading targets on the bundled sample store, side by side in one
# run: `compare 6 9` against `summary 6` + `summary 9`, and `report 9
# --baseline 6` (HTML with its charts), each the median of 5 alternating
# rounds of fresh processes.
# Usage: scripts/read-once-bench.sh [BUILD_DIR]   (a release build: build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
cli=$build/app/warpscope-cli gui=$build/app/warpscope
for b in "$cli" "$gui"; do [ -x "$b" ] || { echo "read-once-bench: no $b (cmake --preset release && ninja -C build/release)" >&2; exit 2; }; done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
db=$work/s.wsdb; cp resources/samples/h200-captures.wsdb "$db"
seconds() { local t0 t1; t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N); awk -v a="$t0" -v b="$t1" 'BEGIN {print (b - a) / 1e9}'; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: > "$work/compare"; : > "$work/summaries"; : > "$work/report"
for _ in 1 2 3 4 5; do
  seconds "$cli" compare 6 9 --db "$db" >> "$work/compare"
  { seconds "$cli" summary 6 --db "$db"; seconds "$cli" summary 9 --db "$db"; } | awk '{t += $1} END {print t}' >> "$work/summaries"
  QT_QPA_PLATFORM=offscreen seconds "$gui" report --db "$db" --output "$work/r.html" 9 --baseline 6 >> "$work/report"
done
c=$(median < "$work/compare"); s=$(median < "$work/summaries"); r=$(median < "$work/report")
printf 'compare 6 9            %.3f s\nsummary 6 + summary 9  %.3f s\nratio                  %.2fx (target <= 3x)\nreport 9 --baseline 6  %.3f s (target <= 0.6 s)\n' \
  "$c" "$s" "$(awk -v c="$c" -v s="$s" 'BEGIN {print c / s}')" "$r"
