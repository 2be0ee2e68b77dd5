#!/usr/bin/env bash
# Runs on the GPU machine: which hardware counters give a kernel's FLOPs and
# DRAM bytes on this GPU, checked with Nsight Compute on the GEMM ladder
# (2·M·N·K FLOPs known exactly). Usage: ncu-roofline-metrics.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
echo "== metrics with tensor / flop / dram names (chip of device 0)"
$ncu --query-metrics 2>/dev/null | grep -E "^(sm__ops_path_tensor|sm__inst_executed_pipe_tensor|smsp__sass_thread_inst_executed_op_(f|h|d)(add|mul|fma)|dram__bytes|sm__warps_active|smsp__sass_inst_executed_op_.*mma)" | cut -c1-110 || true
cfg=$(mktemp --suffix=.toml)
cat > "$cfg" <<TOML
name = "gemm-2048"
kind = "kernel"
[kernel]
name = "gemm_bf16"
rung = "all"
shape = { m = 2048, n = 2048, k = 2048 }
iterations = 1
warmup = 0
TOML
metrics=sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active
echo "== ncu on every GEMM rung, 2048^3 (2MNK = 17179869184)"
$ncu --metrics "$metrics" --csv --page raw "$build/app/warpscope-workload" run "$cfg" 2>&1 \
  | python3 -c '
import csv, sys
rows = [r for r in csv.reader(l for l in sys.stdin if l.startswith("\""))]
head = rows[0]
for r in rows[2:]:
    d = dict(zip(head, r))
    name = d.get("Kernel Name", "")[:60]
    vals = {k.split("__", 1)[1][:48]: d[k] for k in head if "__" in k}
    print(name); [print("   ", k, v) for k, v in vals.items()]
' | head -150
