#!/usr/bin/env bash
# Runs on the GPU machine: the GEMV ladder's top rungs (splitk, mma, int8)
# against cuBLAS and the copy ceiling on the bench's three batch-1 shapes and
# at batch 2–16. Usage: gemv-check.sh BUILD_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR" 1 "$@"
ws_header
for shape in "batch = 1, n = 8192, k = 8192" "batch = 1, n = 28672, k = 4096" \
             "batch = 1, n = 4096, k = 14336" "batch = 2, n = 8192, k = 8192" \
             "batch = 4, n = 8192, k = 8192" "batch = 8, n = 8192, k = 8192" \
             "batch = 16, n = 8192, k = 8192" "batch = 8, n = 4096, k = 14336" \
             "batch = 8, n = 28672, k = 4096"; do
  ws_kernel_config "$tmp/g.toml" g gemv_bf16 splitk,mma,int8,cublas "$shape" 50 5
  "$build/app/warpscope-workload" run "$tmp/g.toml" || fail=1
done
ws_finish
