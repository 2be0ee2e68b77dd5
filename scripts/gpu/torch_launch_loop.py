#!/usr/bin/env python3
"""A launch-bound PyTorch loop for issue #19's overhead comparison: OPS small
in-place tensor ops (one ~2 µs kernel each, with PyTorch's usual state reads
around every launch). Far less spread than a Hugging Face generate(): no
model, every op alike. --profiler none|cuda|cpu+cuda and --alternate TOOL as
timed_region.py."""
import argparse

import torch

from timed_region import time_region


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--profiler", choices=["none", "cuda", "cpu+cuda"], default="none")
    p.add_argument("--alternate", choices=["warpscope", "cuda", "cpu+cuda"])
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

    time_region(region, args.calls, args.profiler, args.alternate)


if __name__ == "__main__":
    main()
