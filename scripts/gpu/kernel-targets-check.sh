#!/usr/bin/env bash
# Runs on the GPU machine: the wgmma GEMM tile widths side by side on the shape
# that needs the narrower tile, the decode attention rungs, the whole kernel
# bench (targets table) and the decoder's end-to-end targets with its GPU tests.
# Usage: kernel-targets-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
ws_header
ws_kernel_config "$tmp/q.toml" q gemm_bf16 wgmma,cublas "m = 2048, n = 3072, k = 2048" 30 5
for w in 256 192 128 auto; do
  echo "-- tile N $w"
  WARPSCOPE_WGMMA_TILE_N=$w timeout 30 "$build/app/warpscope-workload" run "$tmp/q.toml" 2>&1 | grep -E "wgmma|cublas" || fail=1
done > "$out/tile-widths.txt"
cat "$out/tile-widths.txt"
timeout 60 bash "$here/decode-attention-check.sh" "$build" > "$out/decode-attention.txt" 2>&1 || fail=1
grep -E "PASSED|FAILED|attention_decode|splitkv_mma" "$out/decode-attention.txt"
timeout 200 bash "$here/kernel-bench.sh" "$build" "$out" > /dev/null 2>&1 || fail=1
grep -A40 "^target" "$out/kernel-bench.txt"
SKIP_SAMPLES=1 timeout 150 bash "$here/decoder-check.sh" "$build" "$out" > "$out/decoder-e2e.txt" 2>&1 || fail=1
grep -E "^--|TTFT|TPOT|PASSED|FAILED" "$out/decoder-e2e.txt"
ws_finish
