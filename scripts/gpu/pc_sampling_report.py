#!/usr/bin/env python3
"""A table for pc-sampling-check.sh: one kernel's share of PC samples by stall
reason, Warpscope's (`kernel RUN NAME --json`) beside Nsight Compute's
(smsp__pcsamp_warps_issue_stalled_* summed over the kernel's launches).

  pc_sampling_report.py KERNEL.json NCU.csv

Passes when every reason holding >= 5 % of either side's samples is within 5
points; the "not issued" variants are left out on both sides."""
import csv
import json
import sys
from collections import defaultdict

from gpu_metrics_report import short

PREFIX = "smsp__pcsamp_warps_issue_stalled_"


def ncu_counts(path, kernel):
    lines = [l for l in open(path) if l.startswith('"')]
    counts = defaultdict(float)
    for r in csv.DictReader(lines):
        name = r["Metric Name"]
        if short(r["Kernel Name"]) != kernel or not name.startswith(PREFIX):
            continue
        if name.endswith("_not_issued"):
            continue
        try:
            counts[name] += float(r["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    return counts


def main():
    ours = json.load(open(sys.argv[1]))
    kernel = short(ours["demangled"])
    pcs = ours.get("pc_sampling") or {}
    mine = {r["reason"]: r["share"] for r in pcs.get("stall_reasons", [])}
    theirs = ncu_counts(sys.argv[2], kernel)
    total = sum(theirs.values())
    if not mine or total == 0:
        print(f"{kernel}: nothing to compare (ours {len(mine)} reasons, ncu {total:.0f} samples)")
        return 1
    print(f"{kernel}: {pcs['samples']} samples here, {total:.0f} in ncu")
    print(f"{'stall reason':36s} {'ours':>7s} {'ncu':>7s} {'diff':>7s}")
    worst = 0.0
    for reason in sorted(set(mine) | set(theirs), key=lambda r: -(mine.get(r, 0) + theirs.get(r, 0) / total)):
        a, b = 100 * mine.get(reason, 0), 100 * theirs.get(reason, 0) / total
        if max(a, b) < 0.5:
            continue
        print(f"{reason[len(PREFIX):]:36s} {a:6.1f}% {b:6.1f}% {a - b:+6.1f}")
        if max(a, b) >= 5:
            worst = max(worst, abs(a - b))
    print(f"worst difference among reasons >= 5 %: {worst:.1f} pt (target <= 5 pt): "
          + ("PASS" if worst <= 5 else "FAIL"))
    return 0 if worst <= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
