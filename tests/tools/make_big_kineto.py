#!/usr/bin/env python3
"""Writes a large Kineto trace for the import-at-scale benchmark: the real H200
trace (tests/data/kineto_llama_h200.json) repeated with shifted timestamps, the
way issue 21's 519 MB file was made. Seeded, so the same size gives the same
bytes. Never commit its output.

    make_big_kineto.py OUT.json --mb 500 [--seed 21] [--gzip]
"""
import argparse
import gzip
import json
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "data", "kineto_llama_h200.json")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=500.0, help="approximate size in MB (1e6 bytes)")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--gzip", action="store_true", help="write gzip (as PyTorch's .json.gz)")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    with open(FIXTURE) as f:
        doc = json.load(f)
    events = doc.pop("traceEvents")
    ts = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
    first, span = min(ts), max(ts) - min(ts)
    # Each event once as text with its ts cut out: a copy only prints the new ts.
    parts = []
    for e in events:
        if isinstance(e.get("ts"), (int, float)):
            rel = e["ts"] - first
            e = dict(e, ts="@TS@")
            head, tail = json.dumps(e, separators=(", ", ": ")).split('"@TS@"')
            parts.append((head, rel, tail))
        else:
            parts.append((json.dumps(e, separators=(", ", ": ")), None, ""))
    header = json.dumps(doc, indent=2)[:-2]  # without the closing "\n}"
    target = int(args.mb * 1e6)
    opener = gzip.open if args.gzip else open
    written = 0
    with opener(args.out, "wt") as out:
        out.write(header + ',\n  "traceEvents": [\n')
        offset, copy = 0.0, 0
        while written < target:
            lines = []
            for head, rel, tail in parts:
                lines.append(head if rel is None else "%s%.3f%s" % (head, first + offset + rel, tail))
            chunk = ("  " if copy == 0 else ",\n  ") + ",\n  ".join(lines)
            out.write(chunk)
            written += len(chunk)
            copy += 1
            # The next copy starts a little after this one ends (seeded gap).
            offset += span + rng.uniform(50.0, 500.0)
        out.write("\n  ]\n}\n")
    print("%s: %d copies of %d events, %.0f MB of JSON" % (args.out, copy, len(parts), written / 1e6))


if __name__ == "__main__":
    main()
