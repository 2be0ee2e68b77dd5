#!/usr/bin/env python3
"""Writes an Nsight Systems SQLite export (`nsys export --type sqlite`) of N
kernels on S streams, each launched by a cudaLaunchKernel, for the import
benchmark (issue 21: 10 M kernels in <= 60 s). The schema and the few fixed
rows are tests/data/nsys_export.sql's; kernels are decode-step-like (40
names, 0.8-30 us, 0.2-4 us gaps per stream), seeded.

    make_big_nsys.py OUT.sqlite --kernels 10000000 [--streams 16] [--seed 1]
"""
import argparse
import os
import random
import sqlite3

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "data", "nsys_export.sql")
GLOBAL_PID = 4242 << 24
THREAD = GLOBAL_PID | 4243


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--kernels", type=int, required=True)
    ap.add_argument("--streams", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if os.path.exists(args.out):
        os.remove(args.out)
    rng = random.Random(args.seed)
    db = sqlite3.connect(args.out)
    db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
    with open(SCHEMA) as f:
        db.executescript(f.read())
    # Names after the fixture's string ids: mangled, demangled, short each.
    first = db.execute("SELECT max(id) FROM StringIds").fetchone()[0] + 1
    names = []
    for i in range(40):
        base = first + 3 * i
        db.execute("INSERT INTO StringIds VALUES (?, ?), (?, ?), (?, ?)",
                   (base, "_Z14gemv_bf16_%dPK13__nv_bfloat16" % i,
                    base + 1, "gemv_bf16_%d(const __nv_bfloat16 *)" % i,
                    base + 2, "gemv_bf16_%d" % i))
        names.append(base)
    launch = db.execute("SELECT id FROM StringIds WHERE value = 'cudaLaunchKernel_v7000'").fetchone()[0]
    clock = [1_000_000_000] * args.streams
    kernels, calls = [], []

    def flush():
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, NULL, ?, ?, ?, "
                       "?, ?, ?, 0, 0, 64, 132, 1, 1, 256, 1, 1, 0, 0, 0, 0, ?, 0, NULL, 0)", kernels)
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, ?, 0, NULL)",
                       calls)
        kernels.clear()
        calls.clear()

    correlation = 1000
    for i in range(args.kernels):
        s = i % args.streams
        clock[s] += rng.randrange(200, 4000)
        start = clock[s]
        end = start + rng.randrange(800, 30000)
        clock[s] = end
        name = names[(i // args.streams) % len(names)]
        kernels.append((start, end, 7 + s, correlation, GLOBAL_PID, name + 1, name + 2, name,
                        correlation))
        calls.append((start - 1000, start - 700, THREAD, correlation, launch))
        correlation += 1
        if len(kernels) == 200_000:
            flush()
    flush()
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
