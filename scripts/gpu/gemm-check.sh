#!/usr/bin/env bash
# Runs on the GPU machine: the GEMM rungs checked against the CPU reference
# (GPU tests), then timed against cuBLAS at 4096³ and the 1B/8B prefill shapes.
# Usage: gemm-check.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd); tmp=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
"$build/tests/gpu/kernel_ladder_gpu_tests" --gtest_filter='*gemm*:*BadShapes*' 2>&1 | grep -E "OK|FAILED|PASSED|Failure|error" | head -20
gemm() {  # name shape
  printf 'name = "%s"\nkind = "kernel"\n[kernel]\nname = "gemm_bf16"\nrung = "%s"\nshape = { %s }\niterations = 30\nwarmup = 5\n' \
    "$1" "$2" "$3" > "$tmp/$1.toml"
  "$build/app/warpscope-workload" run "$tmp/$1.toml" 2>&1 | tail -6
}
rungs=mma,mma_wide,wgmma,cublas
gemm g4096 $rungs "m = 4096, n = 4096, k = 4096"
gemm g8b-gateup $rungs "m = 2048, n = 28672, k = 4096"
gemm g8b-down $rungs "m = 2048, n = 4096, k = 14336"
gemm g1b-qkv $rungs "m = 512, n = 3072, k = 2048"
