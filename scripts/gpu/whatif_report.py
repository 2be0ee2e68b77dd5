#!/usr/bin/env python3
"""Predicted against measured TPOT for the pairs whatif-check.sh recorded.

Each pair predicts a target run from a source run with `warpscope-cli whatif`
and reads the target's own TPOT with `stats`. Targets (issue 47): |predicted -
measured| <= 10 % of the measured TPOT mean and <= 15 % of its p99.
Usage: whatif_report.py CLI STORE
"""
import json
import subprocess
import sys

cli, db = sys.argv[1], sys.argv[2]


def run_json(*args):
    out = subprocess.run([cli, *args, "--db", db, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


runs = {r["label"]: r["id"] for r in run_json("ls")}


MATMUL = ("gemv", "gemm", "nvjet", "xmma", "cutlass")


def matmul_ns(label):
    """GPU time of the run's matmul kernels while requests were served."""
    if label not in runs:
        return None
    summary = run_json("summary", str(runs[label]), "--window", "requests", "--top", "100000")
    total = sum(k["total_ns"] for k in summary["kernels"]
                if any(w in k["name"].lower() for w in MATMUL))
    return total or None


def class_ns_per_step(label):
    """GPU time per decode step by kernel class (`steps --json`: the token
    steps of an offline decoder run, the engine steps of a served one)."""
    if label not in runs:
        return None
    steps = run_json("steps", str(runs[label]))
    if "kernel_ns_per_step" in steps:
        return steps["kernel_ns_per_step"]
    sol = steps.get("speed_of_light")
    if not sol:
        return None
    n = next(k["steps"] for k in sol["kinds"] if k["kind"] == "all")
    return {c: ns / n for c, ns in sol["kernel_ns"].items()}


def measured_classes(src, dst_kernels):
    """--faster CLASS=Nx for each class whose time per step changed between a
    source and a node-traced run of the target: the kernel figures right, so
    what is left of the error is the replay's."""
    a, b = class_ns_per_step(src), class_ns_per_step(dst_kernels)
    if not a or not b:
        return None
    return [arg for c in sorted(a) if c in b and a[c] > 0 and b[c] > 0
            for arg in ("--faster", f"{c}={a[c] / b[c]:.4f}x")]


pairs = []
for m in ("1b", "8b"):
    pairs.append((f"{m}: eager -> CUDA graphs", f"{m}-eager", f"{m}-graphs",
                  ["--no-launch-gaps"]))
    # Sources traced node by node, targets traced whole: the replay drops the
    # wait node tracing adds to each graph launch (--untraced-graph-launches).
    untraced = ["--untraced-graph-launches"]
    pairs.append((f"{m}: graphs traced node by node -> traced whole", f"{m}-graphs-nodes",
                  f"{m}-graphs", untraced))
    pairs.append((f"{m}: bf16 -> int8 weight-only, GEMV bytes halved", f"{m}-graphs-nodes",
                  f"{m}-int8-graphs", ["--faster", "gemvSplitK=2x"] + untraced))
    # The same pairs with the matmuls' measured speed-up (their GPU time over
    # the same requests in the two runs): what the replay errs by when the
    # kernel figure is right.
    # The kernel figure comes from a node-traced run of the target (a graph
    # traced whole has no kernels of its own); TPOT from the target itself.
    for title, src, dst, dst_kernels in (
            ("bf16 -> int8", f"{m}-graphs-nodes", f"{m}-int8-graphs", f"{m}-int8-graphs-nodes"),
            ("cuBLAS -> optimized GEMV", f"{m}-cublas-graphs-nodes", f"{m}-graphs-nodes",
             f"{m}-graphs-nodes")):
        a, b = matmul_ns(src), matmul_ns(dst_kernels)
        if a and b:
            pairs.append((f"{m}: {title}, matmuls at their measured {a / b:.2f}x", src, dst,
                          ["--faster", f"matmul={a / b:.4f}x"] +
                          (untraced if dst != dst_kernels else [])))
    # Batch 1 -> 8: each class's time per decode step as the batch-8 run
    # measured it (the replay does not scale kernels with the batch itself).
    changes = measured_classes(f"{m}-graphs-nodes", f"{m}-batch8-nodes")
    if changes:
        pairs.append((f"{m}: batch 1 -> 8, kernel classes at their measured times",
                      f"{m}-graphs-nodes", f"{m}-batch8", changes + untraced))

# Served runs: sources traced node by node, the target traced whole, as above.
untraced = ["--untraced-graph-launches"]
pairs.append(("1b served, 32 req/s: graphs traced node by node -> traced whole",
              "served-optimized-nodes", "served-optimized", untraced))
a, b = matmul_ns("served-cublas-nodes"), matmul_ns("served-optimized-nodes")
if a and b:
    pairs.append((f"1b served, 32 req/s: cuBLAS -> optimized GEMV at measured {a / b:.2f}x",
                  "served-cublas-nodes", "served-optimized",
                  ["--faster", f"matmul={a / b:.4f}x"] + untraced))

# Attention's two decode split plans, each pair with the premise
# (attention 2x faster) and with attention at its measured speed-up.
for load, src, dst, dst_kernels in (
        ("concurrency 16: wave -> fixed", "attn-wave-nodes", "attn-fixed", "attn-fixed-nodes"),
        ("concurrency 1: fixed -> wave", "attn1-fixed-nodes", "attn1-wave", "attn1-wave-nodes")):
    for title, change in (("attention 2x faster", ["--faster", "attention=2x"]),
                          ("attention at its measured time", None)):
        if change is None:
            a = (class_ns_per_step(src) or {}).get("attention")
            b = (class_ns_per_step(dst_kernels) or {}).get("attention")
            if not a or not b:
                continue
            title = f"attention at its measured {a / b:.2f}x"
            change = ["--faster", f"attention={a / b:.4f}x"]
        pairs.append((f"1b served, {load} decode splits, {title}", src, dst, change + untraced))

print(f"{'pair':66} {'stat':5} {'source':>8} {'predicted':>9} {'measured':>8} {'error':>7}  target")
worst = 0
for title, src, dst, change in pairs:
    if src not in runs or dst not in runs:
        print(f"{title:66} not recorded")
        worst = max(worst, 99)
        continue
    try:
        w = run_json("whatif", str(runs[src]), *change)
    except subprocess.CalledProcessError as e:
        print(f"{title:66} whatif failed: {e.stderr.strip()}")
        worst = max(worst, 99)
        continue
    measured = run_json("stats", str(runs[dst]))
    for stat, key, limit in (("mean", "mean_tpot_ms", 10), ("p99", "p99_tpot_ms", 15)):
        p = next(v for v in w["predictions"] if v["metric"] == "tpot" and v["statistic"] == stat)
        err = 100 * (p["predicted"] - measured[key]) / measured[key]
        ok = abs(err) <= limit
        print(f"{title:66} {stat:5} {p['recorded']:8.3f} {p['predicted']:9.3f} "
              f"{measured[key]:8.3f} {err:+6.1f}%  {'met' if ok else 'MISSED'} (<= {limit} %)")
sys.exit(0)
