#!/usr/bin/env python3
"""Checks what `warpscope-cli record` stored against what a program launched.
Reads runs through `warpscope-cli export --format json`. Prints a table and
exits non-zero when a check fails."""
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

CLI, DB = sys.argv[1], sys.argv[2]
results = []


def check(name, ok, detail):
    results.append((name, ok, detail))
    print(("PASS " if ok else "FAIL ") + name + ": " + detail, flush=True)


def export(run):
    with tempfile.TemporaryDirectory(prefix="warpscope-check.") as tmp:
        path = os.path.join(tmp, "run.json")
        out = subprocess.run([CLI, "export", str(run), "--db", DB, "--format", "json", "-o",
                              path], capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(out.stderr)
        with open(path) as f:
            return json.load(f)


def runs():
    return json.loads(subprocess.run([CLI, "ls", "--json", "--db", DB], capture_output=True,
                                     text=True, check=True).stdout)


def by_label(label):
    return [r for r in runs() if r["label"] == label][-1]


def fixture(label, expected):
    run = export(by_label(label)["id"])
    check("fixture status", run["status"] == "ok", run["status"])
    kernels = run["kernels"]
    streams = {}
    for spec in expected["kernels"]:
        rows = [k for k in kernels if spec["name"] in k["name"]]
        check(f"kernel {spec['name']} count", len(rows) == spec["count"],
              f"{len(rows)} stored, {spec['count']} launched")
        if not rows:
            continue
        grid = {(k["grid_x"], k["grid_y"], k["grid_z"]) for k in rows}
        block = {(k["block_x"], k["block_y"], k["block_z"]) for k in rows}
        smem = {(k["static_smem_bytes"], k["dynamic_smem_bytes"]) for k in rows}
        check(f"kernel {spec['name']} launch config",
              grid == {tuple(spec["grid"])} and block == {tuple(spec["block"])} and
              smem == {(spec["static_smem"], spec["dynamic_smem"])},
              f"grid {grid} block {block} smem(static,dynamic) {smem}")
        st = {k["stream_id"] for k in rows}
        check(f"kernel {spec['name']} on one stream", len(st) == 1, f"streams {st}")
        streams.setdefault(spec["stream"], set()).update(st)
    check("fixture uses two distinct streams",
          len(streams) == 2 and all(len(s) == 1 for s in streams.values()) and
          streams[1] != streams[2], str(streams))
    sid = {k: next(iter(v)) for k, v in streams.items()}
    for spec in expected["memcpys"]:
        rows = [m for m in run["memcpys"] if m["kind"] == spec["kind"] and m["bytes"] == spec["bytes"]
                and m["stream_id"] == sid.get(spec["stream"])]
        check(f"memcpy {spec['kind']} {spec['bytes']} B", len(rows) == spec["count"],
              f"{len(rows)} stored, {spec['count']} issued")
    for spec in expected["memsets"]:
        rows = [m for m in run["memsets"] if m["bytes"] == spec["bytes"]
                and m["stream_id"] == sid.get(spec["stream"])]
        check("memset", len(rows) == spec["count"], f"{len(rows)} stored")
    names = Counter(r["name"] for r in run["ranges"])
    for r in expected["ranges"]:
        check(f"nvtx range {r}", names[r] == 1, f"{names[r]} stored")
    check("token marks -> tokens", len(run["tokens"]) == expected["tokens"],
          f"{len(run['tokens'])} tokens, request rows {len(run['requests'])}")
    check("device info", run.get("device_info", {}).get("sm_count", 0) > 0,
          json.dumps(run.get("device_info")))
    check("api calls recorded", len(run["api_calls"]) > 0, f"{len(run['api_calls'])}")
    check("device samples", len(run["samples"]) > 0, f"{len(run['samples'])} samples")


def timing(label, event_ms):
    run = export(by_label(label)["id"])
    spins = [k for k in run["kernels"] if "spin_kernel" in k["name"] and k["grid_x"] == 132]
    cupti_ms = sum(k["duration_ns"] for k in spins) / 1e6
    ratio = cupti_ms / event_ms
    check("kernel durations vs CUDA events", abs(ratio - 1) <= 0.02,
          f"CUPTI {cupti_ms:.3f} ms over {len(spins)} kernels, events {event_ms:.3f} ms, "
          f"ratio {ratio:.4f}")


def external(label, min_kernels, want_ranges, want_tokens=0):
    info = by_label(label)
    run = export(info["id"])
    names = Counter(r["name"] for r in run["ranges"])
    check(f"{label}: status", run["status"] == "ok", run["status"] + " " + str(run.get("exit_code")))
    check(f"{label}: kernels", len(run["kernels"]) >= min_kernels, f"{len(run['kernels'])} kernels")
    check(f"{label}: memcpys", len(run["memcpys"]) > 0, f"{len(run['memcpys'])} memcpys")
    for w in want_ranges:
        hits = sum(v for k, v in names.items() if k.startswith(w))
        check(f"{label}: nvtx '{w}'", hits > 0, f"{hits} ranges; {len(run['ranges'])} in all")
    if want_tokens:
        check(f"{label}: tokens", len(run["tokens"]) == want_tokens,
              f"{len(run['tokens'])} tokens from NVTX marks")
    top = Counter(k["name"][:60] for k in run["kernels"]).most_common(3)
    print(f"     top kernels: {top}")


def killed(label, kill_unix_ns):
    run = export(by_label(label)["id"])
    offset = int(next((v for k, v in run["properties"].items() if k == "cupti_clock_offset_ns"), 0))
    last_end = max((k["end_ns"] for k in run["kernels"]), default=0) - offset
    gap_ms = (kill_unix_ns - last_end) / 1e6
    check("SIGKILL: run marked killed", run["status"] == "killed",
          f"{run['status']} signal {run.get('signal')}")
    check("SIGKILL: kernels kept up to ~100 ms before the kill", len(run["kernels"]) > 0
          and gap_ms <= 150, f"{len(run['kernels'])} kernels, last ended {gap_ms:.1f} ms "
          "before the kill")


if __name__ == "__main__":
    what = sys.argv[3]
    if what == "fixture":
        fixture(sys.argv[4], json.load(open(sys.argv[5])))
    elif what == "timing":
        timing(sys.argv[4], float(sys.argv[5]))
    elif what == "external":
        external(sys.argv[4], int(sys.argv[5]), sys.argv[6].split(",") if sys.argv[6] else [],
                 int(sys.argv[7]) if len(sys.argv) > 7 else 0)
    elif what == "killed":
        killed(sys.argv[4], int(sys.argv[5]))
    sys.exit(0 if all(ok for _, ok, _ in results) else 1)
