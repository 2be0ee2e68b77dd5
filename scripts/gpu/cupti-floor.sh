#!/usr/bin/env bash
# Runs on the GPU machine: CUPTI's own per-launch cost by activity kind
# (experiments/cupti_floor.cu, buffers discarded unread), next to the full
# collector on the same loop; 3 alternating rounds.
# Usage: cupti-floor.sh BUILD_DIR   (a build configured with
# -DWARPSCOPE_BUILD_EXPERIMENTS=ON, which puts cupti_floor in BUILD_DIR/exp)
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR" 1 "$@"
export LD_LIBRARY_PATH=/usr/local/cuda/extras/CUPTI/lib64:$LD_LIBRARY_PATH
[ -x "$build/exp/cupti_floor" ] || ws_die "$build/exp/cupti_floor: not built (configure with -DWARPSCOPE_BUILD_EXPERIMENTS=ON)"
ws_header
(
  for _ in 1 2 3; do
    for mode in none kernel kernel+runtime kernel+runtime+driver all all+systid; do
      "$build/exp/cupti_floor" "$mode" | awk '{print $1, $3}' || fail=1
    done
    echo "collector $("$build/app/warpscope-cli" record --db "$tmp/floor.wsdb" --progress none -- "$build/tests/gpu/capture_fixture" launches 200000 | awk '/WALL_MS/{print $2}')"
  done
  exit "$fail"
) | tee /dev/stderr | python3 -c '
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in sys.stdin:
    k, v = line.split(); rows[k].append(float(v))
base = statistics.median(rows["none"])
for k, v in rows.items():
    m = statistics.median(v); print(f"{k:24s} median {m:8.1f} ms  {m/base:.3f} x untraced  rounds {v}")
' || fail=1
ws_finish
