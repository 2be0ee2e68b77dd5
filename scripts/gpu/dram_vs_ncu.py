#!/usr/bin/env python3
"""Per kernel launch: DRAM read and write MB counted by Warpscope's counter pass
against Nsight Compute's with --cache-control all and none, joined by launch
order (the same program runs under both; the counts must agree). Exit status
1 when a kernel's mean read or write bytes over its launches differ from ncu
--cache-control all's by more than 2 % of its DRAM traffic (ncu's read +
write) plus 64 KiB: a few hundred cache lines of a kernel that writes almost
nothing are not a disagreement (ncu's own two cache modes differ by more).
The largest per-launch difference and ncu's own launch-to-launch spread are
printed beside it.
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
    return name.replace("<unnamed>::", "").split("(")[0].split("<")[0].replace("void ", "").strip()


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
METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
per_kernel = {}  # ncu name -> {"ws": [...], "ncu": [...]} of (read, write) per launch
for (name, v), (ncu_name, a), (_, n) in zip(ours, ncu_all, ncu_none):
    k = per_kernel.setdefault(ncu_name, {"ws": [], "ncu": []})
    k["ws"].append(tuple(v[m] for m in METRICS))
    k["ncu"].append(tuple(a.get(m, 0) for m in METRICS))
    cols = []
    for m in METRICS:
        w, x, y = v[m] / 1e6, a.get(m, 0) / 1e6, n.get(m, 0) / 1e6
        ratio = w / x if x else float("inf") if w else 1.0
        traffic = (a.get(METRICS[0], 0) + a.get(METRICS[1], 0)) / 1e6
        if traffic > 1:
            worst[m] = max(worst[m], abs(w - x) / traffic)
        cols.append(f"{w:9.2f} {x:9.2f} {ratio:6.3f} {y:9.2f}")
    if verbose:
        print(f"{short(ncu_name)[:44]:44s} {' '.join(cols)}")
print(f"largest difference of one launch from ncu --cache-control all, as a share of its DRAM "
      f"traffic (launches moving > 1 MB): read {100 * worst[METRICS[0]]:.2f} %, "
      f"write {100 * worst[METRICS[1]]:.2f} %")

# The verdict is per kernel, on the mean of its launches: a kernel whose L2
# reuse varies launch to launch moves different bytes each time, under ncu
# as under us; its spread is printed beside it.
bad = []
print(f"{'kernel':40s} {'n':>3s} {'read ws':>9s} {'ncu':>9s} {'write ws':>9s} {'ncu':>9s} "
      f"{'diff % traffic':>14s} {'ncu spread %':>12s}")
for ncu_name, k in per_kernel.items():
    count = len(k["ws"])
    mean = lambda rows, i: sum(r[i] for r in rows) / len(rows)
    ws_r, ws_w = mean(k["ws"], 0), mean(k["ws"], 1)
    nc_r, nc_w = mean(k["ncu"], 0), mean(k["ncu"], 1)
    traffic = nc_r + nc_w
    diff = max(abs(ws_r - nc_r), abs(ws_w - nc_w))
    totals = [r + w for r, w in k["ncu"]]
    spread = (max(totals) - min(totals)) / traffic if traffic else 0.0
    # The ladder's input fills are set-up, not rungs: shown, not judged.
    setup = "fillKernel" in ncu_name
    ok = setup or diff <= 0.02 * traffic + 65536
    print(f"{short(ncu_name)[:40]:40s} {count:3d} {ws_r / 1e6:9.2f} {nc_r / 1e6:9.2f} "
          f"{ws_w / 1e6:9.2f} {nc_w / 1e6:9.2f} {100 * diff / traffic if traffic else 0:14.2f} "
          f"{100 * spread:12.2f}{'  (set-up)' if setup else '' if ok else '  MISS'}")
    if not ok:
        failed = True
        bad.append(f"{short(ncu_name)[:40]} {100 * diff / traffic:.1f} % (ncu spread {100 * spread:.1f} %)")
print("PASS: every kernel's mean read and write bytes within 2 % of its traffic (+64 KiB) of ncu's"
      if not failed else "FAIL: " + ("; ".join(bad) if bad else "launch counts differ"))
sys.exit(1 if failed else 0)
