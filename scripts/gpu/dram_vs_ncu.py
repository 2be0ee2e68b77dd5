#!/usr/bin/env python3
"""Per kernel launch: DRAM read and write MB counted by Warpscope's counter pass
against Nsight Compute's with --cache-control all and none, joined by launch
order (the same program runs under both; the counts must agree). Exit status
1 when a launch's read or write bytes differ from ncu --cache-control all by
more than 2 % of the launch's DRAM traffic (ncu's read + write) plus 64 KiB:
a few hundred cache lines of a kernel that writes almost nothing are not a
disagreement (ncu's own two cache modes differ by more).
Usage: dram_vs_ncu.py LADDER POLICY KERNELS.csv METRICS.csv NCU_ALL.csv NCU_NONE.csv"""
import csv
import os
import sys
from collections import defaultdict

ladder, policy, kernels_csv, metrics_csv, ncu_all_csv, ncu_none_csv = sys.argv[1:7]


def ncu_launches(path):
    """[(name, {metric: value})] in launch order, from ncu --csv --print-units base."""
    lines = [l for l in open(path) if l.startswith('"')]
    by_id = defaultdict(dict)
    names = {}
    for r in csv.DictReader(lines):
        i = int(r["ID"])
        names[i] = r["Kernel Name"]
        by_id[i][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [(names[i], by_id[i]) for i in sorted(by_id)]


def short(name):
    return name.split("(")[0].split("<")[0].replace("void ", "").strip()


kernels = sorted(csv.DictReader(open(kernels_csv)), key=lambda r: int(r["correlation_id"]))
values = defaultdict(dict)
for r in csv.DictReader(open(metrics_csv)):
    values[int(r["correlation_id"])][r["metric"]] = float(r["value"])
ours = [(k["name"], values.get(int(k["correlation_id"]), {})) for k in kernels]
ours = [(n, v) for n, v in ours if "dram__bytes_read.sum" in v]
ncu_all, ncu_none = ncu_launches(ncu_all_csv), ncu_launches(ncu_none_csv)


print(f"== {ladder}, Warpscope {policy}: {len(ours)} launches with counters, "
      f"ncu {len(ncu_all)} / {len(ncu_none)}")
verbose = bool(os.environ.get("VERBOSE"))
worst = {"dram__bytes_read.sum": 0.0, "dram__bytes_write.sum": 0.0}
if verbose:
    print(f"{'kernel (ncu name)':44s} {'read ws':>9s} {'ncu all':>9s} {'ratio':>6s} {'ncu none':>9s}"
          f" {'write ws':>9s} {'ncu all':>9s} {'ratio':>6s} {'ncu none':>9s}")
failed = len(ours) != len(ncu_all) or len(ours) != len(ncu_none)
worst_bad = []
for (name, v), (ncu_name, a), (_, n) in zip(ours, ncu_all, ncu_none):
    cols = []
    for m in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
        w, x, y = v[m] / 1e6, a.get(m, 0) / 1e6, n.get(m, 0) / 1e6
        ratio = w / x if x else float("inf") if w else 1.0
        traffic = (a.get("dram__bytes_read.sum", 0) + a.get("dram__bytes_write.sum", 0)) / 1e6
        if traffic > 1:
            worst[m] = max(worst[m], abs(w - x) / traffic)
        if abs(w - x) > 0.02 * traffic + 0.065536:
            failed = True
            worst_bad.append(f"{short(ncu_name)[:40]} {m}: {w:.2f} vs {x:.2f} MB")
        cols.append(f"{w:9.2f} {x:9.2f} {ratio:6.3f} {y:9.2f}")
    if verbose:
        print(f"{short(ncu_name)[:44]:44s} {' '.join(cols)}")
print(f"largest difference from ncu --cache-control all, as a share of the launch's DRAM traffic "
      f"(launches moving > 1 MB): read {100 * worst['dram__bytes_read.sum']:.2f} %, "
      f"write {100 * worst['dram__bytes_write.sum']:.2f} %")
print("PASS" if not failed else "FAIL: differs from ncu --cache-control all by > 2 % of the traffic: "
      + "; ".join(worst_bad[:4]) + (f" (+{len(worst_bad) - 4} more)" if len(worst_bad) > 4 else ""))
sys.exit(1 if failed else 0)
