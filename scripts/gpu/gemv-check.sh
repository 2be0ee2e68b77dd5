#!/usr/bin/env bash
# Runs on the GPU machine: the GEMV ladder's top rung against cuBLAS and the
# copy ceiling on the bench's three batch-1 shapes and at batch 2–16, then
# the batch-1 layout variants side by side (scripts/gpu/experiments/gemv_variants.cu).
# Usage: gemv-check.sh BUILD_DIR   (BUILD_DIR/exp/gemv_variants built from that file)
set -uo pipefail
build=$(cd "$1" && pwd); tmp=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for shape in "batch = 1, n = 8192, k = 8192" "batch = 1, n = 28672, k = 4096" \
             "batch = 1, n = 4096, k = 14336" "batch = 2, n = 8192, k = 8192" \
             "batch = 4, n = 8192, k = 8192" "batch = 8, n = 8192, k = 8192" \
             "batch = 16, n = 8192, k = 8192" "batch = 8, n = 4096, k = 14336" \
             "batch = 8, n = 28672, k = 4096"; do
  printf 'name = "g"\nkind = "kernel"\n[kernel]\nname = "gemv_bf16"\nrung = "splitk,mma,int8,cublas"\nshape = { %s }\niterations = 50\nwarmup = 5\n' "$shape" > "$tmp/g.toml"
  "$build/app/warpscope-workload" run "$tmp/g.toml"
done
if [ -x "$build/exp/gemv_variants" ]; then "$build/exp/gemv_variants"; fi
