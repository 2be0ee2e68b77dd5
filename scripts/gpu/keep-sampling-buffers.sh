#!/usr/bin/env bash
# Runs on the GPU machine: records what CUPTI hands the samplers, for the CPU
# tests that read it back through the collector's own code (tests/data):
#   pc-sampling-kept.bin    every PC-sampling buffer of the split-KV MMA decode
#                           attention recorded with --pc-sampling
#                           (WARPSCOPE_PC_SAMPLING_KEEP: the sampled process's
#                           file, pc-sampling-PID.bin), and
#   pc-sampling-kept.json   what the same run stored for that kernel
#                           (`kernel RUN decodeSplitMma --json`);
#   gpu0.pmkeep             the first busy PM-sampling images of cuBLAS's GEMM
#                           recorded with --gpu-metrics (WARPSCOPE_GPU_METRICS_KEEP)
#                           with the values the live sampler made of them.
# Usage: keep-sampling-buffers.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
ws_header
cfg=$tmp/attention.toml
ws_kernel_config "$cfg" attention-pc attention_decode splitkv_mma "batch = 8, context = 4096" 20 3
mkdir -p "$tmp/pc"
WARPSCOPE_PC_SAMPLING_KEEP=$tmp/pc \
  "$cli" record --db "$tmp/pc.wsdb" --pc-sampling --progress none --workload "$cfg" 2>&1 |
  grep "PC sampling" || fail=1
ls -l "$tmp/pc"
# shellcheck disable=SC2012  # the largest file: the workload's, not a helper's
cp "$tmp/pc/$(ls -S "$tmp/pc" | head -1)" "$out/pc-sampling-kept.bin" || fail=1
"$cli" kernel 1 decodeSplitMma --db "$tmp/pc.wsdb" --top 100000 --json > "$out/pc-sampling-kept.json" || fail=1
cfg=$tmp/gemm.toml
ws_kernel_config "$cfg" gemm-pm gemm_bf16 cublas "m = 4096, n = 4096, k = 4096" 3000 3
WARPSCOPE_GPU_METRICS_KEEP=$out "$cli" record --db "$tmp/pm.wsdb" --gpu-metrics --progress none \
  --workload "$cfg" 2>&1 | grep -i "metric" | head -5
[ -s "$out/gpu0.pmkeep" ] || { echo "no gpu0.pmkeep written"; fail=1; }
ls -l "$out"
ws_finish
