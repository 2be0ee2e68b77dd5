#!/usr/bin/env bash
# Runs on the GPU machine: `record --metrics roofline` on the GEMM ladder at
# 2048³ and on the GEMV ladder; prints each kernel's counter FLOPs against
# 2·M·N·K, its DRAM bytes and achieved occupancy, joined by correlation id.
# Usage: counters-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
db=$out/counters.wsdb; rm -f "$db"*
ws_header
ws_kernel_config "$tmp/gemm.toml" gemm-2048-counters gemm_bf16 all "m = 2048, n = 2048, k = 2048" 2 0
SECONDS=0
# The run's own status is not checked: the tables below say what was counted.
"$cli" record --db "$db" --metrics roofline --progress none --workload "$tmp/gemm.toml" > "$out/gemm.log" 2>&1
echo "gemm ladder with counters: ${SECONDS} s"
grep "kernel counters" "$out/gemm.log" | sort | uniq -c | head
"$cli" export 1 --db "$db" --format csv --table kernels -o "$out/kernels.csv" || fail=1
"$cli" export 1 --db "$db" --format csv --table metrics -o "$out/metrics.csv" || fail=1
python3 "$here/counters_report.py" "$out/kernels.csv" "$out/metrics.csv" 17179869184 || fail=1
"$cli" summary 1 --db "$db" --top 8 || fail=1
"$cli" roofline 1 --db "$db" || fail=1
# The GEMV ladder (decode, memory-bound): counted DRAM bytes against the weights.
ws_kernel_config "$tmp/gemv.toml" gemv-8192-counters gemv_bf16 all "batch = 1, k = 8192, n = 8192" 2 0
"$cli" record --db "$db" --metrics roofline --progress none --workload "$tmp/gemv.toml" > "$out/gemv.log" 2>&1
"$cli" summary 2 --db "$db" --top 8 || fail=1
ws_finish
