#!/usr/bin/env bash
# Runs on the GPU machine: the kernel performance targets (ratios measured side by side in one run).
# Usage: kernel-bench.sh BUILD_DIR OUT_DIR [--quick]
set -uo pipefail
build=$(cd "$1" && pwd); out=$2; shift 2; mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
fail=0
"$build/app/warpscope-workload" bench "$@" 2>&1 | tee "$out/kernel-bench.txt" || fail=1
exit $fail
