"""The timing both overhead programs share (torch_decode_timed.py,
torch_launch_loop.py): the region run once as warm-up, then timed call by call
in the program itself, optionally under torch.profiler (entered before the
warm-up, as a user would). Prints REGION_S with the median, CALLS_S with each.

With --alternate TOOL the calls alternate in one process between traced and
untraced, the pairs' order swapped every pair, so the machine's drift between
processes and minutes (10-60 % on the device VMs) falls out of each pair's
ratio. TOOL "warpscope" opens a window with torch.cuda.profiler.start()/stop()
(cudaProfilerStart/Stop; run under `warpscope-cli record --capture-range
cudaProfilerApi`); "cuda" enters a torch.profiler with CUDA activities only
around the call. Prints TRACED_S, UNTRACED_S, PAIR_RATIO (the median of the
pairs' traced / untraced) and PAIRS. Each call waits WS_ALTERNATE_SLEEP_S
(default 0.3 s) first, so the previous call's records have left.

WS_PROFILER_WINDOW=1 (without --alternate) calls torch.cuda.profiler.start()
once before the warm-up: under `record --capture-range cudaProfilerApi` the
calls are then traced as in a whole-run recording, but from a window opened
after the model was loaded.

WS_TRACE_ONLY_WARMUP=1 (without --alternate) traces the warm-up call only,
with --profiler KIND, or (KIND none) through one cudaProfilerStart/Stop
window for `record --capture-range cudaProfilerApi`, and times the calls
after it untraced: what a tool leaves behind once it has traced (the
untraced calls of an alternating process ran 22-27 % slower than a
never-traced process's)."""
import contextlib
import os
import statistics
import time

import torch


def profiler(kind):
    if kind == "none":
        return contextlib.nullcontext()
    acts = [torch.profiler.ProfilerActivity.CUDA]
    if kind == "cpu+cuda":
        acts.append(torch.profiler.ProfilerActivity.CPU)
    return torch.profiler.profile(activities=acts)


@contextlib.contextmanager
def profiler_api_window():
    torch.cuda.profiler.start()
    try:
        yield
    finally:
        torch.cuda.profiler.stop()


def tracer(tool):
    if tool == "warpscope":
        return profiler_api_window()
    return profiler(tool)


def timed(region, context):
    # Records of the previous call leave the process, and its profiler's
    # trace is processed, before the clock starts.
    torch.cuda.synchronize()
    time.sleep(float(os.environ.get("WS_ALTERNATE_SLEEP_S", "0.3")))
    with context:
        start = time.perf_counter()
        region()
        torch.cuda.synchronize()
        took = time.perf_counter() - start
    return took


def alternate(region, calls, tool):
    # Warm-up: the first call, and the first traced call (a tool's set-up).
    timed(region, contextlib.nullcontext())
    timed(region, tracer(tool))
    pairs = []
    for i in range(calls):
        if i % 2 == 0:
            u = timed(region, contextlib.nullcontext())
            t = timed(region, tracer(tool))
        else:
            t = timed(region, tracer(tool))
            u = timed(region, contextlib.nullcontext())
        pairs.append((t, u))
    print(f"TRACED_S {statistics.median(t for t, _ in pairs):.4f}")
    print(f"UNTRACED_S {statistics.median(u for _, u in pairs):.4f}")
    print(f"PAIR_RATIO {statistics.median(t / u for t, u in pairs):.4f}")
    print("PAIRS " + " ".join(f"{t:.4f}/{u:.4f}" for t, u in pairs))


def time_region(region, calls, profiler_kind, alternate_tool=None):
    if alternate_tool:
        with torch.no_grad():
            alternate(region, calls, alternate_tool)
        return
    times = []
    if os.environ.get("WS_TRACE_ONLY_WARMUP") == "1":
        with torch.no_grad(), tracer("warpscope" if profiler_kind == "none" else profiler_kind):
            region()
            torch.cuda.synchronize()
        profiler_kind = "none"
    elif os.environ.get("WS_PROFILER_WINDOW") == "1":
        torch.cuda.profiler.start()
    with torch.no_grad(), profiler(profiler_kind):
        region()
        torch.cuda.synchronize()
        for _ in range(calls):
            start = time.perf_counter()
            region()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
    print(f"REGION_S {statistics.median(times):.4f}")
    print("CALLS_S " + " ".join(f"{t:.4f}" for t in times))
