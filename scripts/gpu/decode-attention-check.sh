#!/usr/bin/env bash
# Runs on the GPU machine: the decode attention rungs checked against the CPU
# reference (GPU tests), then timed at the benchmark's shapes and at GQA groups
# of the presets. Usage: decode-attention-check.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd); tmp=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
"$build/tests/gpu/kernel_ladder_gpu_tests" --gtest_filter='*attention_decode*:*Decode*' 2>&1 | tail -6
kernel() {  # name shape
  printf 'name = "%s"\nkind = "kernel"\n[kernel]\nname = "attention_decode"\nrung = "all"\nshape = { %s }\niterations = 50\nwarmup = 5\n' \
    "$1" "$2" > "$tmp/$1.toml"
  "$build/app/warpscope-workload" run "$tmp/$1.toml" 2>&1 | tail -8
}
kernel decode-b8-4k "batch = 8, context = 4096"
kernel decode-b1-32k "batch = 1, context = 32768"
kernel decode-b16-8k "batch = 16, context = 8192"
kernel decode-b1-4k "batch = 1, context = 4096"
kernel decode-b4-8k-qwen7b "batch = 4, context = 8192, heads = 28, kv_heads = 4"
kernel decode-b1-640-1b "batch = 1, context = 640, head_dim = 64"
