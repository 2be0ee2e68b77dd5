#!/usr/bin/env python3
"""A launch-bound PyTorch loop for issue #19's overhead comparison: OPS small
in-place tensor ops (one ~2 µs kernel each, with PyTorch's usual state reads
around every launch), timed call by call in the program itself. Far less
spread than a Hugging Face generate(): no model, every op alike.

--profiler none|cuda|cpu+cuda wraps the region in torch.profiler (entered
before the warm-up); under `warpscope-cli record` use none. Prints REGION_S
with the median of the timed calls, CALLS_S with each."""
import argparse
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--profiler", choices=["none", "cuda", "cpu+cuda"], default="none")
    p.add_argument("--ops", type=int, default=20000)
    p.add_argument("--calls", type=int, default=5)
    # Accepted for torch-overhead-check.sh, which passes them to either program.
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--tokens", type=int, default=0)
    args = p.parse_args()
    x = torch.zeros(1024, device="cuda")

    def region():
        for _ in range(args.ops):
            x.add_(1.0)
        torch.cuda.synchronize()

    times = []
    with torch.no_grad(), profiler(args.profiler):
        region()  # warm-up, also of the profiler
        for _ in range(args.calls):
            start = time.perf_counter()
            region()
            times.append(time.perf_counter() - start)
    print(f"REGION_S {statistics.median(times):.4f}")
    print("CALLS_S " + " ".join(f"{t:.4f}" for t in times))


if __name__ == "__main__":
    main()
