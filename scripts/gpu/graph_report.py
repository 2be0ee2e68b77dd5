#!/usr/bin/env python3
"""Judges graph-check.sh's summaries (warpscope-cli summary --json).

  graph_report.py three SUMMARY          150 replayed kernels, 50 per capture range
  graph_report.py decoder EAGER GRAPHS   per range: equal kernel counts, time within 2 %
  graph_report.py compile SUMMARY        share of replayed kernel time in a capture-time range (>= 99 %)
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def ranges(summary):
    return {r["name"]: r for r in summary["ranges"]}


def verdict(ok, text):
    print(("PASS " if ok else "FAIL ") + text)
    return ok


def three(path):
    s = load(path)
    g, r = s["graph_replay"], ranges(s)
    ok = verdict(g["kernels"] == 150 and g["in_capture_range"] == 150,
                 f"replayed kernels {g['kernels']} (150), traced {g['traced_to_capture']}, "
                 f"inside a capture-time range {g['in_capture_range']} (150)")
    for name in ("capture.mul", "capture.relu", "capture.add"):
        n = r.get(name, {}).get("kernel_inclusive_count", 0)
        ok &= verdict(n == 50, f"{name}: {n} kernels (50)")
    n = r.get("replay", {}).get("kernel_inclusive_count", 0)
    ok &= verdict(n == 0, f"replay (where cudaGraphLaunch ran): {n} kernels (0)")
    return ok


def decoder(eager_path, graphs_path):
    e, g = ranges(load(eager_path)), ranges(load(graphs_path))
    replay = load(graphs_path)["graph_replay"]
    print(f"graph run: {replay['kernels']} replayed kernels, {replay['in_capture_range']} "
          f"inside a capture-time range")
    ok = replay["kernels"] > 0 and replay["in_capture_range"] == replay["kernels"]
    names = ["embed", "attention", "mlp", "final norm", "lm head", "sample"]
    names += sorted((n for n in e if n.startswith("layer ")), key=lambda n: int(n.split()[1]))
    print(f"{'range':<12}{'eager kernels':>14}{'graph kernels':>14}{'eager ms':>10}"
          f"{'graph ms':>10}{'ratio':>8}")
    # Ranges under 1 % of the kernel time hold 1-2 us kernels whose own
    # durations change when replayed back to back: judged by count alone.
    total = sum(e[n]["kernel_inclusive_ns"] for n in ("embed", "attention", "mlp", "final norm",
                                                       "lm head", "sample") if n in e)
    for name in names:
        a, b = e.get(name), g.get(name)
        if not a or not b:
            ok = verdict(False, f"{name}: missing in {'eager' if not a else 'graph'} run")
            continue
        ca, cb = a["kernel_inclusive_count"], b["kernel_inclusive_count"]
        ta, tb = a["kernel_inclusive_ns"] / 1e6, b["kernel_inclusive_ns"] / 1e6
        ratio = tb / ta if ta else float("nan")
        small = a["kernel_inclusive_ns"] < 0.01 * total
        good = ca == cb and (small or abs(ratio - 1) <= 0.02)
        ok &= good
        note = "" if good else "  <- differs"
        if good and small and abs(ratio - 1) > 0.02:
            note = "  (under 1 % of kernel time: count judged)"
        print(f"{name:<12}{ca:>14}{cb:>14}{ta:>10.3f}{tb:>10.3f}{ratio:>8.3f}{note}")
    return verdict(ok, "decoder: every replayed kernel in a range; per range equal counts, "
                       "kernel time within 2 % (ranges over 1 % of it)")


def compiled(path):
    g = load(path)["graph_replay"]
    total = g["kernel_ns"] or 1
    traced, inside = g["traced_ns"] / total, g["in_capture_range_ns"] / total
    print(f"replayed kernels {g['kernels']}: traced to their capture {g['traced_to_capture']} "
          f"({traced:.1%} of their time), inside a capture-time range {g['in_capture_range']} "
          f"({inside:.1%})")
    top = sorted(load(path)["ranges"], key=lambda r: -r["kernel_self_ns"])[:6]
    print("ranges by self kernel time: " + "; ".join(
        f"{r['name'][:60]} {r['kernel_self_ns'] / total:.1%}" for r in top))
    return verdict(g["kernels"] > 0 and inside >= 0.99,
                   f"torch.compile reduce-overhead: {inside:.2%} of replayed kernel time "
                   f"attributed to a capture-time range (>= 99 %)")


if __name__ == "__main__":
    mode, files = sys.argv[1], sys.argv[2:]
    ok = {"three": three, "decoder": decoder, "compile": compiled}[mode](*files)
    sys.exit(0 if ok else 1)
