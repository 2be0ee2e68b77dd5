#!/usr/bin/env python3
"""Tables for gpu-metrics-check.sh.

  gpu_metrics_report.py LADDER KERNELS.csv BY_KERNEL.json NCU.csv
    per kernel: each sampled metric's mean over its launches (gpu-metrics
    --by kernel --json) against Nsight Compute's mean over its launches of the
    same kernel (the realtime metric's ncu name: `_realtime` dropped); for the
    copy ladder also the sampled DRAM read + write GB/s against the kernel's
    bytes over its measured time. Exit 1 when a comparison is off by more than
    5 % (the issue's bar), percentage metrics by more than 5 points.
  gpu_metrics_report.py --cost FILES
    the decoder's median decode step (steps --json) with and without
    --gpu-metrics, per round
    and the ratio of medians (files from the script's cost loop)."""
import csv
import json
import statistics
import sys
from collections import defaultdict

COPY_BYTES = 268435456  # the copy ladder's shape in gpu-metrics-check.sh


def short(name):
    """The function's own name with its template arguments (gemmMmaKernel<256, 4>
    and <128, 3> are two kernels): CUPTI says ws::kernels::(anonymous
    namespace)::gemmTiled where ncu says ws::<unnamed>::gemmTiled."""
    name = name.replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    name = name.split("(")[0].replace("void ", "").strip()
    head, bracket, args = name.partition("<")
    # ncu spells a bool template argument 0/1 where the demangler says false/true.
    args = args.replace("false", "0").replace("true", "1")
    return head.split("::")[-1] + bracket + args


def ncu_means(path):
    """{short kernel name: {metric: mean over launches}} from ncu --csv --print-units base."""
    lines = [l for l in open(path) if l.startswith('"')]
    values = defaultdict(lambda: defaultdict(list))
    for r in csv.DictReader(lines):
        try:
            values[short(r["Kernel Name"])][r["Metric Name"]].append(float(r["Metric Value"].replace(",", "")))
        except ValueError:
            pass
    return {k: {m: statistics.mean(v) for m, v in ms.items()} for k, ms in values.items()}


def cost(files):
    """The decoder's median decode step (steps --json, its token steps)."""
    runs = [line.split() for line in open(f"{files}/cost-runs.txt") if line.strip()]
    medians = defaultdict(list)
    print(f"{'round':>5s} {'mode':8s} {'decode step p50':>16s}")
    for mode, rnd, _ in runs:
        steps = json.load(open(f"{files}/cost-{mode}-{rnd}.steps.json"))
        if not steps.get("token_steps"):
            print(f"{rnd:>5s} {mode:8s} {'(no token steps)':>16s}")
            continue
        medians[mode].append(steps["step_p50_ns"])
        print(f"{rnd:>5s} {mode:8s} {steps['step_p50_ns'] / 1e3:13.1f} µs")
    if medians["plain"] and medians["sampled"]:
        ratio = statistics.median(medians["sampled"]) / statistics.median(medians["plain"])
        spread = (max(medians["plain"]) - min(medians["plain"])) / statistics.median(medians["plain"])
        print(f"sampled / plain decode step: {ratio:.3f}x (target <= 1.03x; plain's own spread "
              f"{100 * spread:.1f} %)")
        return 0 if ratio <= 1.03 else 1
    return 1


def main():
    if sys.argv[1] == "--cost":
        return cost(sys.argv[2])
    ladder, kernels_csv, ours_json, ncu_csv = sys.argv[1:5]
    durations = defaultdict(list)
    demangled = {}
    for k in csv.DictReader(open(kernels_csv)):
        demangled[k["name"]] = k["demangled"] or k["name"]
        durations[short(demangled[k["name"]])].append(int(k["duration_ns"]))
    ours = {}
    for g in json.load(open(ours_json))["groups"]:
        ours[short(demangled.get(g["name"], g["name"]))] = {m["metric"]: m for m in g["metrics"]}
    ncu = ncu_means(ncu_csv)
    failed = False
    print(f"== {ladder}: sampled mean over each kernel's launches against ncu (--clock-control none)")
    print(f"{'kernel':34s} {'metric':34s} {'sampled':>10s} {'ncu':>10s} {'diff':>8s} {'in span':>7s}")
    for name in sorted(ours, key=lambda n: -sum(durations.get(n, [0]))):
        if name not in ncu:
            print(f"{name[:34]:34s} (no ncu row for it)")
            continue
        for metric, m in ours[name].items():
            ncu_name = metric.replace("_realtime", "")
            if ncu_name not in ncu[name]:
                continue
            ref = ncu[name][ncu_name]
            pct = metric.endswith("pct_of_peak_sustained_elapsed")
            # DRAM read and write against the kernel's DRAM traffic (ncu's read +
            # write), as dram_vs_ncu.py does: a GEMV writes a few KB, whose
            # own relative error says nothing.
            traffic = ref
            if metric.startswith("dram__bytes_"):
                traffic = sum(ncu[name].get(f"dram__bytes_{d}.sum.per_second", 0) for d in ("read", "write"))
            diff = m["mean"] - ref if pct else (m["mean"] - ref) / traffic * 100 if traffic else float("nan")
            bad = abs(diff) > 5 and m["span_share"] > 0.9
            failed |= bad
            scale = 1 if pct else 1e-9
            unit = " pt" if pct else " %"
            print(f"{name[:34]:34s} {m['label'][:34]:34s} {m['mean'] * scale:10.2f} {ref * scale:10.2f}"
                  f" {diff:+7.1f}{unit} {100 * m['span_share']:6.0f}%{'  MISS' if bad else ''}")
    if ladder == "copy":
        for name, d in durations.items():
            if name not in ours:
                continue
            expected = 2 * COPY_BYTES / statistics.mean(d)  # bytes per ns = GB/s
            read = ours[name].get("dram__bytes_read.sum.per_second", {}).get("mean", 0) * 1e-9
            write = ours[name].get("dram__bytes_write.sum.per_second", {}).get("mean", 0) * 1e-9
            off = ((read + write) / expected - 1) * 100
            failed |= abs(off) > 5
            print(f"copy {name}: sampled DRAM read {read:.0f} + write {write:.0f} = {read + write:.0f} GB/s;"
                  f" bytes over time {expected:.0f} GB/s ({statistics.mean(d) / 1e3:.1f} µs per launch,"
                  f" {len(d)} launches): {off:+.1f} %{'  MISS' if abs(off) > 5 else ''}")
    return 1 if failed else 0


sys.exit(main())
