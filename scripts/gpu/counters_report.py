#!/usr/bin/env python3
"""Joins a run's kernels and counter metrics (CSV exports) by correlation id and
prints, per kernel name, the counted FLOPs (FP32, FP16, tensor) against an
expected count, DRAM bytes, the counted kernel duration, the DRAM bandwidth
over that duration and achieved occupancy.
Usage: counters_report.py KERNELS.csv METRICS.csv [EXPECTED_FLOPS]"""
import csv
import sys
from collections import defaultdict

kernels = {int(r["correlation_id"]): r for r in csv.DictReader(open(sys.argv[1]))}
expected = float(sys.argv[3]) if len(sys.argv) > 3 else 0
metrics = defaultdict(dict)
for r in csv.DictReader(open(sys.argv[2])):
    metrics[int(r["correlation_id"])][r["metric"]] = float(r["value"])
print(f"{len(kernels)} kernels, {len(metrics)} with counters")
def g(m, k):
    return m.get(k, 0.0)
rows = defaultdict(list)
for corr, m in metrics.items():
    name = kernels.get(corr, {}).get("name", f"? corr {corr}")
    fp32 = g(m, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") + g(m, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum") + 2 * g(m, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")
    fp16 = g(m, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum") + g(m, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum") + 2 * g(m, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum")
    tensor = g(m, "sm__ops_path_tensor_src_bf16_dst_fp32.sum") + g(m, "sm__ops_path_tensor_src_fp16.sum")
    dram = g(m, "dram__bytes_read.sum") + g(m, "dram__bytes_write.sum")
    occ = g(m, "sm__warps_active.avg.pct_of_peak_sustained_active")
    ns = g(m, "gpu__time_duration.sum")
    rows[name].append((fp32, fp16, tensor, dram, occ, ns))
print(f"{'kernel':58s} {'n':>3s} {'fp32 GF':>9s} {'fp16 GF':>8s} {'tensor GF':>10s} {'tensor/2MNK':>11s} {'(all)/2MNK':>10s} {'DRAM MB':>9s} {'occ %':>6s} {'us':>8s} {'GB/s':>7s}")
for name, vals in sorted(rows.items(), key=lambda kv: -max(v[2] + v[0] for v in kv[1])):
    v = [sum(x[i] for x in vals) / len(vals) for i in range(6)]
    gbs = v[3] / v[5] if v[5] else 0.0  # bytes per ns = GB/s
    ratio = f"{v[2] / expected:.4f}" if expected else "-"
    total = f"{(v[0] + v[1] + v[2]) / expected:.4f}" if expected else "-"
    print(f"{name[:58]:58s} {len(vals):3d} {v[0]/1e9:9.3f} {v[1]/1e9:8.3f} {v[2]/1e9:10.3f} {ratio:>11s} {total:>10s} {v[3]/1e6:9.1f} {v[4]:6.1f} {v[5]/1e3:8.1f} {gbs:7.0f}")
