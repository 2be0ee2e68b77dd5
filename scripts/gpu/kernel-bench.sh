#!/usr/bin/env bash
# Runs on the GPU machine: the kernel performance targets (ratios measured side by side in one run).
# Usage: kernel-bench.sh BUILD_DIR OUT_DIR [--quick]
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR [--quick]" 2 "$@"; shift 2
gpu_fields=name,driver_version,clocks.max.sm
ws_header
"$build/app/warpscope-workload" bench "$@" 2>&1 | tee "$out/kernel-bench.txt" || fail=1
ws_finish
