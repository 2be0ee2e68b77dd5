#!/usr/bin/env bash
# Runs on the GPU machine: every ladder's GPU test, then the softmax ladder at
# the bench's shapes (a quick check of one kernel's change).
# Usage: softmax-check.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd); tmp=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
"$build/tests/gpu/kernel_ladder_gpu_tests" 2>&1 | grep -E "^\[  (PASSED|FAILED) |Failure" | head
for shape in "rows = 4096, cols = 32768" "rows = 512, cols = 131072"; do
  printf 'name = "s"\nkind = "kernel"\n[kernel]\nname = "softmax"\nrung = "all"\nshape = { %s }\niterations = 50\nwarmup = 3\n' "$shape" > "$tmp/s.toml"
  "$build/app/warpscope-workload" run "$tmp/s.toml"
done
