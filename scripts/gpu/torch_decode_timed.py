#!/usr/bin/env python3
"""The measured region of issue #19's overhead comparison: a Llama-shaped
Hugging Face generate() (random weights, no download), timed call by call in
the program itself, so every way of tracing it is judged on the same clock.

--profiler none|cuda|cpu+cuda and --alternate TOOL as timed_region.py; under
`warpscope-cli record` use none, or --alternate warpscope."""
import argparse

import torch

from timed_region import time_region
from torch_llama_generate import llama_model  # the same model, beside this script


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--profiler", choices=["none", "cuda", "cpu+cuda"], default="none")
    p.add_argument("--alternate", choices=["warpscope", "cuda", "cpu+cuda"])
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--calls", type=int, default=3)
    args = p.parse_args()
    model, config = llama_model()
    prompt = torch.randint(0, config.vocab_size, (args.batch, 128), device="cuda")
    kw = dict(max_new_tokens=args.tokens, min_new_tokens=args.tokens, do_sample=False)
    time_region(lambda: model.generate(prompt, **kw), args.calls, args.profiler, args.alternate)


if __name__ == "__main__":
    main()
