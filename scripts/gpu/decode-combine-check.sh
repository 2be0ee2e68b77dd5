#!/usr/bin/env bash
# Runs on the GPU machine: the splitkv_mma decode attention with each way of
# combining its splits (WARPSCOPE_DECODE_COMBINE = cluster or fused; kernel and
# fused-pdl also exist and were slower than fused), checked against the CPU
# reference (ladder and decoder GPU tests) and timed side by side at the
# bench's shapes, two alternating rounds.
# Usage: decode-combine-check.sh BUILD_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR" 1 "$@"
ws_header
for mode in cluster fused; do
  echo "-- tests, $mode"
  WARPSCOPE_DECODE_COMBINE=$mode "$build/tests/gpu/kernel_ladder_gpu_tests" --gtest_filter='*attention_decode*' > "$tmp/ladder.txt" 2>&1 || fail=1
  grep -E "^\[  (PASSED|FAILED)|Failure" "$tmp/ladder.txt" | head -4
  WARPSCOPE_DECODE_COMBINE=$mode "$build/tests/gpu/decoder_gpu_tests" > "$tmp/decoder.txt" 2>&1 || fail=1
  grep -E "^\[  (PASSED|FAILED)|Failure" "$tmp/decoder.txt" | head -4
done
for _ in 1 2; do
  for mode in cluster fused; do
    for shape in "batch = 8, context = 4096" "batch = 1, context = 32768" "batch = 16, context = 8192" "batch = 1, context = 4096"; do
      ws_kernel_config "$tmp/d.toml" d attention_decode splitkv_mma "$shape" 100 10
      echo "$mode | $shape | $(WARPSCOPE_DECODE_COMBINE=$mode "$build/app/warpscope-workload" run "$tmp/d.toml" 2>&1 | grep splitkv_mma)"
    done
  done
done
ws_finish
