"""The timing both overhead programs share (torch_decode_timed.py,
torch_launch_loop.py): the region run once as warm-up, then timed call by call
in the program itself, optionally under torch.profiler (entered before the
warm-up, as a user would). Prints REGION_S with the median, CALLS_S with each."""
import contextlib
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


def time_region(region, calls, profiler_kind):
    times = []
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
