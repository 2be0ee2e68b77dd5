"""The launch storm of scale-record-check.sh, untraced and recorded side by
side. Usage: scale_record.py BUILD_DIR STORE KERNELS STREAMS OUT_DIR
SKIP_UNTRACED=1 records only (the untraced storm takes ~150 s at 100 M); SKIP_ONE_PASS=1
leaves out the one-thread summary beside the sliced one."""
import json
import os
import subprocess
import sys
import threading
import time


def peak_rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def run(cmd, timeout=None, env=None):
    """Runs cmd; returns (stdout lines with arrival times, stderr lines with
    arrival times, wall seconds, the process's peak RSS in MiB)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err = [], []

    def read(stream, into):
        for line in stream:
            into.append((time.monotonic() - t0, line.rstrip("\n")))

    readers = [threading.Thread(target=read, args=(p.stdout, out)),
               threading.Thread(target=read, args=(p.stderr, err))]
    for r in readers:
        r.start()
    peak = 0.0
    while p.poll() is None:
        rss = peak_rss_mib(p.pid)
        peak = max(peak, rss or 0)
        if timeout and time.monotonic() - t0 > timeout:
            p.kill()
        time.sleep(0.2)
    for r in readers:
        r.join()
    return out, err, time.monotonic() - t0, peak, p.returncode


def value(lines, key):
    for _, line in lines:
        if line.startswith(key + " "):
            return float(line.split()[1])
    return None


def main():
    build, db, kernels, streams, out_dir = sys.argv[1:6]
    kernels, streams = int(kernels), int(streams)
    fixture = f"{build}/tests/gpu/capture_fixture"
    cli = f"{build}/app/warpscope-cli"
    fail = 0

    if kernels <= 0:
        # As many as launch in ~50 s (the call's time holds two of them and
        # the reads after), at most the 100 M of the target.
        out, _, _, _, _ = run([fixture, "streams", "2000000", str(streams)])
        rate = 2e6 / value(out, "WALL_MS") * 1e3
        kernels = int(min(100e6, max(10e6, rate * 50)) // 1e6 * 1e6)
        print(f"probe: {rate / 1e6:.2f} M kernels/s untraced; measuring {kernels:,} kernels")
    plain_ms = None
    if os.environ.get("SKIP_UNTRACED"):
        print("untraced: skipped")
    else:
        out, _, _, _, rc = run([fixture, "streams", str(kernels), str(streams)])
        plain_ms = value(out, "WALL_MS")
        print(f"untraced: {kernels:,} kernels on {streams} streams in {plain_ms / 1e3:.2f} s "
              f"= {kernels / plain_ms * 1e3 / 1e6:.2f} M kernels/s (exit {rc})")

    for label, extra in (("traced", []), ("traced --no-driver-api", ["--no-driver-api"])):
        if label != "traced" and kernels > 20_000_000:
            continue  # one recording of the big size fits the call's time
        out, err, wall, peak, rc = run([cli, "record", "--db", db, "--label", label,
                                        "--progress", "json", *extra, "--",
                                        fixture, "streams", str(kernels), str(streams)],
                                       timeout=420)
        traced_ms = value(out, "WALL_MS")
        ended_at = next((t for t, line in out if line.startswith("WALL_MS")), None)
        progress = []
        for t, line in err:
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("warpscope") == "record":
                progress.append((t, m))
        last = progress[-1][1] if progress else {}
        received = last.get("kernels", 0)
        dropped = last.get("dropped", 0)
        api = last.get("api_calls", 0)
        at_end = max((m.get("kernels", 0) for t, m in progress if ended_at and t <= ended_at),
                     default=0)
        drain = wall - ended_at if ended_at else float("nan")
        with open(f"{out_dir}/{label.replace(' ', '')}-progress.jsonl", "w") as f:
            for t, m in progress:
                f.write(json.dumps({"t": round(t, 3), **m}) + "\n")
        if traced_ms is None:
            print(f"FAIL {label}: the program printed no WALL_MS (exit {rc}); "
                  f"last stderr: {[l for _, l in err[-5:]]}")
            fail = 1
            continue
        rate = kernels / traced_ms * 1e3
        print(f"{label}: {kernels / 1e6:.0f} M kernels in {traced_ms / 1e3:.2f} s = "
              f"{rate / 1e6:.2f} M kernels/s "
              f"({f'{traced_ms / plain_ms:.3f}x' if plain_ms else 'no'} untraced wall); "
              f"recorder received {received:,} kernels and {api:,} API calls, {dropped:,} dropped; "
              f"{at_end:,} kernels received when the program printed its wall time, the rest "
              f"({received - at_end:,}) in the {drain:.1f} s until the run was stored; "
              f"record wall {wall:.1f} s; recorder peak RSS {peak:.0f} MiB; exit {rc}")
        # The fixture launches one warm-up kernel before the timed ones.
        if dropped or received != kernels + 1:
            print(f"FAIL {label}: {dropped} dropped, {received} of {kernels + 1} received")
            fail = 1
        # Records per second the writer took while the program ran, against the
        # rate the program launched at: the writer keeps up when the backlog at
        # the end is small.
        records = received + api
        print(f"{label}: {records / wall / 1e6:.2f} M records/s stored over the whole record "
              f"({records:,} records)")

    runs = json.loads(subprocess.run([cli, "ls", "--db", db, "--json"], capture_output=True,
                                     text=True).stdout)
    if runs:
        run_id = str(runs[-1]["id"]) if runs[-1]["label"] == "traced" else str(runs[0]["id"])
        # The summary on every core, then on one thread (its one-pass code),
        # side by side; then show.
        summary = ["summary", run_id, "--window", "run", "--top", "3"]
        passes = [("summary (every core)", summary, None), ("summary (one thread)", summary, "1"),
                  ("show", ["show", run_id], None)]
        if os.environ.get("SKIP_ONE_PASS"):  # ~46 s at 100 M: when the device time is short
            del passes[1]
        for what, cmd, threads in passes:
            env = dict(os.environ, WARPSCOPE_SUMMARY_THREADS=threads) if threads else None
            out, err, wall, peak, rc = run([cli, *cmd, "--db", db], timeout=300, env=env)
            print(f"{what} of run {run_id}: {wall:.1f} s, peak RSS {peak:.0f} MiB, exit {rc}")
            for _, line in out[:14 if threads is None else 0]:
                print("   ", line)
    return fail


sys.exit(main())
