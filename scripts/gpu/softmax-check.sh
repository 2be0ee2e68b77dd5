#!/usr/bin/env bash
# Runs on the GPU machine: every ladder's GPU test, then the softmax ladder at
# the bench's shapes, and the cluster rung's block shapes side by side on the
# long rows (WARPSCOPE_SOFTMAX_CLUSTER: registers or staged in shared memory), and rows of 65536 columns in one block
# or in a cluster (WARPSCOPE_SOFTMAX_LONG).
# Usage: softmax-check.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd); tmp=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
"$build/tests/gpu/kernel_ladder_gpu_tests" 2>&1 | grep -E "^\[  (PASSED|FAILED) |Failure" | head
run() {  # shape rung
  printf 'name = "s"\nkind = "kernel"\n[kernel]\nname = "softmax"\nrung = "%s"\nshape = { %s }\niterations = 50\nwarmup = 3\n' "$2" "$1" > "$tmp/s.toml"
  "$build/app/warpscope-workload" run "$tmp/s.toml"
}
run "rows = 4096, cols = 32768" all
run "rows = 512, cols = 131072" all
for path in registers cluster; do
  echo "-- rows of 65536 columns by $path"
  WARPSCOPE_SOFTMAX_LONG=$path run "rows = 1024, cols = 65536" fused 2>&1 | grep -E "fused|rror"
done
for shape in 256x8 staged32k staged64k staged96k staged128k; do
  echo "-- cluster block $shape"
  WARPSCOPE_SOFTMAX_CLUSTER=$shape run "rows = 512, cols = 131072" fused 2>&1 | grep -E "fused|rror"
  WARPSCOPE_SOFTMAX_LONG=cluster WARPSCOPE_SOFTMAX_CLUSTER=$shape run "rows = 1024, cols = 65536" fused 2>&1 | grep -E "fused|rror"
done
