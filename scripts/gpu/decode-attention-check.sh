#!/usr/bin/env bash
# Runs on the GPU machine: the decode attention rungs checked against the CPU
# reference (GPU tests), then timed at the benchmark's shapes and at GQA groups
# of the presets. Usage: decode-attention-check.sh BUILD_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR" 1 "$@"
ws_header
"$build/tests/gpu/kernel_ladder_gpu_tests" --gtest_filter='*attention_decode*:*Decode*' 2>&1 | tail -6 || fail=1
kernel() {  # name shape
  ws_kernel_config "$tmp/$1.toml" "$1" attention_decode all "$2" 50 5
  "$build/app/warpscope-workload" run "$tmp/$1.toml" 2>&1 | tail -8 || fail=1
}
kernel decode-b8-4k "batch = 8, context = 4096"
kernel decode-b1-32k "batch = 1, context = 32768"
kernel decode-b16-8k "batch = 16, context = 8192"
kernel decode-b1-4k "batch = 1, context = 4096"
kernel decode-b4-8k-qwen7b "batch = 4, context = 8192, heads = 28, kv_heads = 4"
kernel decode-b1-640-1b "batch = 1, context = 640, head_dim = 64"
ws_finish
