#!/usr/bin/env bash
# Runs on the GPU machine: the attention ladders at decoder shapes (Llama-3.1-8B
# heads), through `warpscope-workload run` on generated kernel configs.
# Usage: attention-ladders.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd); tmp=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
kernel() {  # name kernel shape
  printf 'name = "%s"\nkind = "kernel"\n[kernel]\nname = "%s"\nrung = "all"\nshape = { %s }\niterations = 30\nwarmup = 3\n' \
    "$1" "$2" "$3" > "$tmp/$1.toml"
  "$build/app/warpscope-workload" run "$tmp/$1.toml"
}
kernel prefill2k attention_prefill "tokens = 2048"
kernel prefill512-1b attention_prefill "tokens = 512, head_dim = 64"
kernel decode-b8-4k attention_decode "batch = 8, context = 4096"
kernel decode-b1-32k attention_decode "batch = 1, context = 32768"
kernel decode-b1-640-1b attention_decode "batch = 1, context = 640, head_dim = 64"
kernel gemm-4096 gemm_bf16 "m = 4096, n = 4096, k = 4096"
kernel gemm-8b-gateup gemm_bf16 "m = 2048, n = 28672, k = 4096"
kernel gemm-1b-qkv gemm_bf16 "m = 512, n = 3072, k = 2048"
