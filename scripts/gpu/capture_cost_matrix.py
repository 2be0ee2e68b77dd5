#!/usr/bin/env python3
"""Issue #49's capture-cost matrix: every program under every way of tracing
it, each in its own fresh process, ROUNDS rounds in rotating order (round r
starts at the r-th configuration), so a drifting machine moves every
configuration alike. Prints one line per process as it goes and, at the end,
a table of medians with their spread (min-max) and the ratios the issue sets
targets for, plus each Warpscope run's own statement of its capture cost
against the measured one: the recorded program's own wall time (start to
exit, capture.program_ns; without it the run's, which also holds Warpscope's
storing after the exit) less the untraced process's.

Usage: capture_cost_matrix.py BUILD_DIR OUT_DIR  (environment:
  PROGRAMS  generate1 generate8 decoder_graphs decoder_eager launches
  ROUNDS    5
  CORES     pin every process to these cores, as taskset -c does)
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


def decoder_config(path, graphs):
    # The 8B decoder of resources/workloads, fewer requests so a process
    # takes seconds: the measure is its TPOT, the decode step's mean.
    text = open(os.path.join(SRC, "resources/workloads/llama-3.1-8b-bf16.toml")).read()
    text = re.sub(r"requests = \d+", "requests = 3", text)
    text = re.sub(r"output_tokens = \d+", "output_tokens = 64", text)
    text = text.replace("cuda_graphs = true", f"cuda_graphs = {'true' if graphs else 'false'}")
    with open(path, "w") as f:
        f.write(text)


def programs(build, tmp):
    workload = os.path.join(build, "app/warpscope-workload")
    py = ["python3", os.path.join(HERE, "torch_decode_timed.py"), "--tokens", "32", "--calls", "4"]
    graphs, eager = os.path.join(tmp, "graphs.toml"), os.path.join(tmp, "eager.toml")
    decoder_config(graphs, True)
    decoder_config(eager, False)
    # name: (command, what it prints, whether torch.profiler can wrap it,
    #        whether it replays CUDA graphs)
    return {
        "generate1": (py + ["--batch", "1"], "region", True, False),
        "generate8": (py + ["--batch", "8"], "region", True, False),
        "decoder_graphs": ([workload, "run", graphs], "tpot", False, True),
        "decoder_eager": ([workload, "run", eager], "tpot", False, False),
        "launches": ([workload, "launch-cost", "20000", "0"], "loop", False, False),
    }


def measure(kind, out):
    """The program's own figure, in ms: the median timed call, the decode
    step's mean, or the launch loop's time."""
    if kind == "region":
        m = re.search(r"REGION_S (\S+)", out)
        return float(m.group(1)) * 1e3 if m else None
    if kind == "tpot":
        m = re.search(r"TPOT (\S+) ms mean", out)
        return float(m.group(1)) if m else None
    m = re.search(r"LAUNCH_LOOP_NS (\S+)", out)
    return float(m.group(1)) / 1e6 if m else None


def configurations(build, cli, db, torchable, graphs):
    floor = os.path.join(build, "exp/libcupti_floor_inject.so")
    rec = [cli, "record", "--db", db, "--progress", "none"]
    c = {"untraced": ({}, [], [])}
    c["floor_lean"] = ({"CUDA_INJECTION64_PATH": floor, "FLOOR_KINDS": "lean"}, [], [])
    c["floor_default"] = ({"CUDA_INJECTION64_PATH": floor, "FLOOR_KINDS": "warpscope"}, [], [])
    if torchable:
        c["torch_cuda"] = ({}, [], ["--profiler", "cuda"])
        c["torch_cpu_cuda"] = ({}, [], ["--profiler", "cpu+cuda"])
    c["ws_lean"] = ({}, rec + ["--capture", "lean", "--label", "lean", "--"], [])
    c["ws_default"] = ({}, rec + ["--label", "default", "--"], [])
    if graphs:
        c["ws_graph"] = ({}, rec + ["--graph-trace", "graph", "--label", "graph", "--"], [])
    return c


def last_run(cli, db):
    runs = json.loads(subprocess.run([cli, "ls", "--db", db, "--json"], capture_output=True,
                                     text=True).stdout or "[]")
    if not runs:
        return None
    run = max(runs, key=lambda r: r["id"])
    props = json.loads(subprocess.run([cli, "show", str(run["id"]), "--db", db, "--json"],
                                      capture_output=True, text=True).stdout or "{}")
    props = props.get("properties", {})
    program = float(props.get("capture.program_ns", run["duration_ns"]))
    return {"run": run["id"], "program_ms": program / 1e6,
            "stated_ms": float(props.get("capture.cost_estimate_ns", "nan")) / 1e6,
            "kernels": float(props.get("capture.cost_kernels", "nan"))}


def main():
    build, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    cli = os.path.join(build, "app/warpscope-cli")
    rounds = int(os.environ.get("ROUNDS", "5"))
    pin = ["taskset", "-c", os.environ["CORES"]] if os.environ.get("CORES") else []
    tmp = tempfile.mkdtemp(prefix="capture-cost-")
    progs = programs(build, tmp)
    chosen = os.environ.get("PROGRAMS", " ".join(progs)).split()
    results = {}  # (program, config) -> list of {figure, wall_ms, ...}
    newest = {}  # store -> the id of its newest run
    log = open(os.path.join(out, "capture-cost-matrix.txt"), "a")
    for name in chosen:
        command, kind, torchable, graphs = progs[name]
        db = os.path.join(out, f"{name}.wsdb")
        configs = configurations(build, cli, db, torchable, graphs)
        order = list(configs)
        for r in range(rounds):
            rotated = order[r % len(order):] + order[:r % len(order)]
            for config in rotated:
                env_extra, prefix, suffix = configs[config]
                env = dict(os.environ, **env_extra)
                started = time.perf_counter()
                p = subprocess.run(prefix + pin + command + suffix, env=env, capture_output=True,
                                   text=True)
                wall_ms = (time.perf_counter() - started) * 1e3
                figure = measure(kind, p.stdout)
                row = {"figure": figure, "wall_ms": wall_ms, "rc": p.returncode}
                if prefix:
                    recorded = last_run(cli, db) or {}
                    # A record that failed before making its run leaves the last one.
                    if recorded.get("run") != newest.get(db) and p.returncode == 0:
                        row.update(recorded)
                        newest[db] = recorded.get("run")
                results.setdefault((name, config), []).append(row)
                line = (f"{name} {config} round {r + 1}: {figure} ms, process {wall_ms:.0f} ms"
                        + (f", program {row.get('program_ms', 0):.0f} ms, stated cost "
                           f"{row.get('stated_ms', float('nan')):.1f} ms" if prefix else "")
                        + (f", exit {p.returncode}: {p.stderr.strip()[-300:]}"
                           if p.returncode else ""))
                print(line, flush=True)
                log.write(line + "\n")
                log.flush()
        # After each program, so a run cut short by its time limit keeps
        # the tables of the programs it finished.
        report(results, chosen[:chosen.index(name) + 1], out)


def med(values):
    values = [v for v in values if v is not None and v == v]  # no None, no NaN
    return statistics.median(values) if values else None


def report(results, chosen, out):
    print("\n| program | configuration | median ms (min-max) | x untraced | x floor, same kinds |")
    print("|---|---|---|---|---|")
    table = {}
    for name in chosen:
        base = med(r["figure"] for r in results.get((name, "untraced"), []))
        if base is None:
            print(f"| {name} | untraced | no figure: no ratios | | |")
            continue
        for (prog, config), rows in results.items():
            if prog != name:
                continue
            figures = [r["figure"] for r in rows if r["figure"] is not None]
            m = med(figures)
            if m is None:
                print(f"| {name} | {config} | no figure | | |")
                continue
            floor = {"ws_lean": "floor_lean", "ws_default": "floor_default"}.get(config)
            fm = med(r["figure"] for r in results.get((name, floor), [])) if floor else None
            table[(name, config)] = m
            print(f"| {name} | {config} | {m:.3f} ({min(figures):.3f}-{max(figures):.3f}) | "
                  f"{m / base:.3f} | {'' if not fm else f'{m / fm:.3f}'} |")
    print("\nThe per-run statement against the measured cost (recorded program's wall time - "
          "untraced process's, medians):")
    print("| program | configuration | stated ms | measured ms | stated / measured |")
    print("|---|---|---|---|---|")
    for (name, config), rows in results.items():
        if not config.startswith("ws_"):
            continue
        untraced = med(r["wall_ms"] for r in results.get((name, "untraced"), []))
        run_wall = med(r.get("program_ms") for r in rows)
        stated = med(r.get("stated_ms") for r in rows)
        if untraced is None or run_wall is None or stated is None:
            continue
        measured = run_wall - untraced
        ratio = stated / measured if measured > 0 else float("nan")
        print(f"| {name} | {config} | {stated:.1f} | {measured:.1f} | {ratio:.2f} |")
    with open(os.path.join(out, "capture-cost-matrix.json"), "w") as f:
        json.dump({f"{k[0]} {k[1]}": v for k, v in results.items()}, f, indent=1)


if __name__ == "__main__":
    main()
