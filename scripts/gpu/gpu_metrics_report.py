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


def cost_value(files, program, mode, rnd):
    """What one cost run measured, in µs: the decoder's median decode step
    (steps --json) or generate()'s median call (REGION_S in its log)."""
    if program == "decoder":
        steps = json.load(open(f"{files}/cost-{program}-{mode}-{rnd}.steps.json"))
        return steps["step_p50_ns"] / 1e3 if steps.get("token_steps") else None
    for line in open(f"{files}/cost-{program}-{mode}-{rnd}.log"):
        if line.startswith("REGION_S "):
            return float(line.split()[1]) * 1e6
    return None


def cost(files):
    """Per program: each round's measure with and without --gpu-metrics and the
    ratio of their medians (target <= 1.03x)."""
    runs = [line.split() for line in open(f"{files}/cost-runs.txt") if line.strip()]
    values = defaultdict(lambda: defaultdict(list))
    what = {"decoder": "decode step p50", "generate": "generate() p50"}
    print(f"{'program':9s} {'round':>5s} {'mode':8s} {'measure':>16s}")
    for program, mode, rnd in runs:
        v = cost_value(files, program, mode, rnd)
        print(f"{program:9s} {rnd:>5s} {mode:8s} " + (f"{v:13.1f} µs" if v else "(nothing measured)"))
        if v:
            values[program][mode].append(v)
    ok = bool(values)
    for program, modes in values.items():
        if not (modes["plain"] and modes["sampled"]):
            ok = False
            continue
        plain = statistics.median(modes["plain"])
        ratio = statistics.median(modes["sampled"]) / plain
        spread = (max(modes["plain"]) - min(modes["plain"])) / plain
        print(f"{program}: sampled / plain {what[program]}: {ratio:.3f}x (target <= 1.03x; "
              f"plain's own spread {100 * spread:.1f} %)")
        ok = ok and ratio <= 1.03
    return 0 if ok else 1


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


if __name__ == "__main__":
    sys.exit(main())
