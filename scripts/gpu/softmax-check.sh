#!/usr/bin/env bash
# Runs on the GPU machine: every ladder's GPU test, then the softmax ladder at
# the bench's shapes, and the cluster rung's block shapes side by side on the
# long rows (WARPSCOPE_SOFTMAX_CLUSTER: registers or staged in shared memory),
# and rows of 65536 columns in one block or in a cluster (WARPSCOPE_SOFTMAX_LONG).
# Usage: softmax-check.sh BUILD_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR" 1 "$@"
ws_header
"$build/tests/gpu/kernel_ladder_gpu_tests" > "$tmp/tests.txt" 2>&1 || fail=1
grep -E "^\[  (PASSED|FAILED) |Failure" "$tmp/tests.txt" | head
run() {  # shape rung
  ws_kernel_config "$tmp/s.toml" s softmax "$2" "$1" 50 3
  "$build/app/warpscope-workload" run "$tmp/s.toml"
}
run "rows = 4096, cols = 32768" all || fail=1
run "rows = 512, cols = 131072" all || fail=1
for path in registers cluster; do
  echo "-- rows of 65536 columns by $path"
  WARPSCOPE_SOFTMAX_LONG=$path run "rows = 1024, cols = 65536" fused 2>&1 | grep -E "fused|rror" || fail=1
done
for shape in 256x8 staged32k staged64k staged96k staged128k; do
  echo "-- cluster block $shape"
  WARPSCOPE_SOFTMAX_CLUSTER=$shape run "rows = 512, cols = 131072" fused 2>&1 | grep -E "fused|rror" || fail=1
  WARPSCOPE_SOFTMAX_LONG=cluster WARPSCOPE_SOFTMAX_CLUSTER=$shape run "rows = 1024, cols = 65536" fused 2>&1 | grep -E "fused|rror" || fail=1
done
ws_finish
