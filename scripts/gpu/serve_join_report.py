#!/usr/bin/env python3
"""Checks one `bench serve --server` run exported as JSON (warpscope-cli export
RUN --format json), for serve-join-check.sh. Prints what it finds and exits 1
when a check fails.

  serve_join_report.py spawn RUN.json REQUESTS   torch_spawn_server.py, --max-concurrency 1
  serve_join_report.py builtin RUN.json REQUESTS warpscope-workload serve (GPU backend)

Both: the run is ok and holds the client's requests and tokens AND the
server's kernels; the clock properties are there; every client token lies
inside the server's GPU activity (a misaligned clock puts them seconds or
hours away).
spawn: the kernels and `engine.step` ranges come from the spawned engine
process, not the HTTP process; each client token is compared with the
engine's `emit:SEQ:INDEX` mark for it (SEQ 0 is the warm-up, so client
request k is SEQ k+1 at concurrency 1): token time - emit time is the
delivery delay, never negative on one clock. Its minimum bounds how late
client times could be; a negative value shows how early they are.
"""
import json
import sys


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]


def main():
    mode, path, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
    run = json.load(open(path))
    props = run["properties"]
    fail = False

    def check(ok, what):
        nonlocal fail
        print(("ok    " if ok else "FAIL  ") + what)
        fail |= not ok

    kernels, ranges, tokens = run["kernels"], run["ranges"], run["tokens"]
    check(run["status"] == "ok", f"run status {run['status']}")
    check(len(run["requests"]) == expected,
          f"{len(run['requests'])} client requests stored (expected {expected})")
    check(len(tokens) >= expected, f"{len(tokens)} client tokens stored")
    check(len(kernels) > 0, f"{len(kernels)} kernels from the server in the same run")
    procs = int(props.get("capture.processes", "0"))
    check(procs >= 1, f"{procs} server processes reported to the capture "
                      f"({props.get('capture.pids', '-')}); program pid "
                      f"{props.get('capture.program_pid')}")
    check(props.get("clock.source") == "cupti", f"clock.source {props.get('clock.source')}")
    print("      clock: start offset {} ns (±{}), end offset {} ns (±{}), drift {} ns = {} ppm; "
          "server's CUPTI - Unix at its start {} ns".format(
              props.get("clock.start_offset_ns"), props.get("clock.start_uncertainty_ns"),
              props.get("clock.end_offset_ns"), props.get("clock.end_uncertainty_ns"),
              props.get("clock.drift_ns"), props.get("clock.drift_ppm"),
              props.get("cupti_clock_offset_ns")))

    if kernels and tokens:
        first = min(k["start_ns"] for k in kernels)
        last = max(k["end_ns"] for k in kernels)
        outside = [t for t in tokens if not first <= t["time_ns"] <= last + 100_000_000]
        check(not outside, f"client tokens inside the server's GPU activity "
                           f"({len(outside)} outside [{first}, {last} + 100 ms])")

    # "engine.step" (torch_spawn_server.py) or "engine.step:N;running=..." (built-in).
    steps = [r for r in ranges if r["name"].split(":")[0] == "engine.step"]
    program = int(props.get("capture.program_pid", "0"))
    if mode == "spawn":
        pids = {r["process_id"] for r in steps}
        check(steps and program not in pids,
              f"{len(steps)} engine.step ranges, from process(es) {sorted(pids)}, not the HTTP "
              f"process {program}")
        spawned = [p for p in props.get("capture.pids", "").split(",") if p.endswith(f"({program})")]
        check(bool(spawned), f"a process spawned by the server reported: {spawned}")
        emits = {}
        for r in ranges:
            if r["name"].startswith("emit:"):
                _, seq, index = r["name"].split(":")
                emits[(int(seq), int(index))] = r["start_ns"]
        delays = [t["time_ns"] - emits[(t["request_id"] + 1, t["token_index"])]
                  for t in tokens if (t["request_id"] + 1, t["token_index"]) in emits]
        check(len(delays) == len(tokens),
              f"{len(delays)} of {len(tokens)} client tokens matched to the engine's emit mark")
        if delays:
            us = [d / 1000 for d in delays]
            print(f"      client arrival - engine emit: min {min(us):.1f} µs, p50 "
                  f"{pct(us, 50):.1f} µs, p99 {pct(us, 99):.1f} µs, max {max(us):.1f} µs")
            check(min(us) >= -50, "no client token earlier than its emit by more than 50 µs")
    else:
        if not steps:
            print("      (no engine.step ranges: the backend emits none)")
        else:
            ends = sorted(r["end_ns"] for r in steps)
            import bisect
            gaps = []
            for t in tokens:
                i = bisect.bisect_right(ends, t["time_ns"])
                if i:
                    gaps.append((t["time_ns"] - ends[i - 1]) / 1000)
            check(len(gaps) == len(tokens),
                  f"{len(steps)} engine.step ranges; every client token after one ends "
                  f"({len(tokens) - len(gaps)} before the first)")
            if gaps:
                print(f"      client arrival - end of the latest engine.step: p50 "
                      f"{pct(gaps, 50):.1f} µs, p99 {pct(gaps, 99):.1f} µs")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
