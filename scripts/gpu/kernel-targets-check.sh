#!/usr/bin/env bash
# Runs on the GPU machine: the wgmma GEMM tile widths side by side on the shape
# that needs the narrower tile, the decode attention rungs, the whole kernel
# bench (targets table) and the decoder's end-to-end targets with its GPU tests.
# Usage: kernel-targets-check.sh BUILD_DIR OUT_DIR
set -uo pipefail
B=$(cd "$1" && pwd); OUT=$2; mkdir -p "$OUT"; T=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
here=$(dirname "$0")
printf 'name = "q"\nkind = "kernel"\n[kernel]\nname = "gemm_bf16"\nrung = "wgmma,cublas"\nshape = { m = 2048, n = 3072, k = 2048 }\niterations = 30\nwarmup = 5\n' > "$T/q.toml"
for w in 256 192 128 auto; do
  echo "-- tile N $w"
  WARPSCOPE_WGMMA_TILE_N=$w timeout 30 "$B/app/warpscope-workload" run "$T/q.toml" 2>&1 | grep -E "wgmma|cublas"
done > "$OUT/tile-widths.txt"
cat "$OUT/tile-widths.txt"
timeout 60 bash "$here/decode-attention-check.sh" "$B" > "$OUT/decode-attention.txt" 2>&1
grep -E "PASSED|FAILED|attention_decode|splitkv_mma" "$OUT/decode-attention.txt"
timeout 200 bash "$here/kernel-bench.sh" "$B" "$OUT" > /dev/null 2>&1
grep -A40 "^target" "$OUT/kernel-bench.txt"
SKIP_SAMPLES=1 timeout 150 bash "$here/decoder-check.sh" "$B" "$OUT" > "$OUT/decoder-e2e.txt" 2>&1
grep -E "^--|TTFT|TPOT|PASSED|FAILED" "$OUT/decoder-e2e.txt"
