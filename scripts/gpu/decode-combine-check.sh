#!/usr/bin/env bash
# Runs on the GPU machine: the splitkv_mma decode attention with each way of
# combining its splits (WARPSCOPE_DECODE_COMBINE = cluster, fused, kernel, fused-pdl),
# checked against the CPU reference (ladder and decoder GPU tests) and timed
# side by side at the bench's shapes, two alternating rounds.
# Usage: decode-combine-check.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd); tmp=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for mode in cluster fused; do
  echo "-- tests, $mode"
  WARPSCOPE_DECODE_COMBINE=$mode "$build/tests/gpu/kernel_ladder_gpu_tests" --gtest_filter='*attention_decode*' 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure" | head -4
  WARPSCOPE_DECODE_COMBINE=$mode "$build/tests/gpu/decoder_gpu_tests" 2>&1 | grep -E "^\[  (PASSED|FAILED)|Failure" | head -4
done
for round in 1 2; do  # kernel and fused-pdl were slower than fused (session 5)
  for mode in cluster fused; do
    for shape in "batch = 8, context = 4096" "batch = 1, context = 32768" "batch = 16, context = 8192" "batch = 1, context = 4096"; do
      printf 'name = "d"\nkind = "kernel"\n[kernel]\nname = "attention_decode"\nrung = "splitkv_mma"\nshape = { %s }\niterations = 100\nwarmup = 10\n' "$shape" > "$tmp/d.toml"
      echo "$mode | $shape | $(WARPSCOPE_DECODE_COMBINE=$mode "$build/app/warpscope-workload" run "$tmp/d.toml" 2>&1 | grep splitkv_mma)"
    done
  done
done
