#!/usr/bin/env bash
# Runs on the GPU machine: `record --metrics roofline` on the GEMM ladder at
# 2048³ and on the GEMV ladder; prints each kernel's counter FLOPs against
# 2·M·N·K, its DRAM bytes and achieved occupancy, joined by correlation id.
# Usage: counters-check.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=$(cd "$1" && pwd); out=$2; mkdir -p "$out"
cli=$build/app/warpscope-cli; here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
db=$out/counters.wsdb; rm -f "$db"*
cfg=$(mktemp --suffix=.toml)
cat > "$cfg" <<TOML
name = "gemm-2048-counters"
kind = "kernel"
[kernel]
name = "gemm_bf16"
rung = "all"
shape = { m = 2048, n = 2048, k = 2048 }
iterations = 2
warmup = 0
TOML
SECONDS=0
$cli record --db "$db" --metrics roofline --progress none --workload "$cfg" > "$out/gemm.log" 2>&1 || true
echo "gemm ladder with counters: ${SECONDS} s"
grep "kernel counters" "$out/gemm.log" | sort | uniq -c | head
$cli export 1 --db "$db" --format csv --table kernels -o "$out/kernels.csv"
$cli export 1 --db "$db" --format csv --table metrics -o "$out/metrics.csv"
python3 "$here/counters_report.py" "$out/kernels.csv" "$out/metrics.csv" 17179869184
$cli summary 1 --db "$db" --top 8
$cli roofline 1 --db "$db"
# The GEMV ladder (decode, memory-bound): counted DRAM bytes against the weights.
cat > "$cfg" <<TOML
name = "gemv-8192-counters"
kind = "kernel"
[kernel]
name = "gemv_bf16"
rung = "all"
shape = { batch = 1, k = 8192, n = 8192 }
iterations = 2
warmup = 0
TOML
$cli record --db "$db" --metrics roofline --progress none --workload "$cfg" > "$out/gemv.log" 2>&1 || true
$cli summary 2 --db "$db" --top 8
