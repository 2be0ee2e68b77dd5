#!/usr/bin/env python3
"""The measured region of issue #19's overhead comparison: a Llama-shaped
Hugging Face generate() (random weights, no download), timed call by call in
the program itself, so every way of tracing it is judged on the same clock.

--profiler none|cuda|cpu+cuda wraps the region in torch.profiler (entered
before the warm-up, as a user would); under `warpscope-cli record` use none.
Prints REGION_S with the median of the timed calls, CALLS_S with each."""
import argparse
import contextlib
import statistics
import time

import torch

from torch_llama_generate import llama_model  # the same model, beside this script


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
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--calls", type=int, default=3)
    args = p.parse_args()
    model, config = llama_model()
    prompt = torch.randint(0, config.vocab_size, (args.batch, 128), device="cuda")
    kw = dict(max_new_tokens=args.tokens, min_new_tokens=args.tokens, do_sample=False)
    times = []
    with torch.no_grad(), profiler(args.profiler):
        model.generate(prompt, **kw)  # warm-up, also of the profiler
        torch.cuda.synchronize()
        for _ in range(args.calls):
            start = time.perf_counter()
            model.generate(prompt, **kw)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
    print(f"REGION_S {statistics.median(times):.4f}")
    print("CALLS_S " + " ".join(f"{t:.4f}" for t in times))


if __name__ == "__main__":
    main()
