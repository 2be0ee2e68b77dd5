#!/usr/bin/env python3
"""Issue #24's tensor-parallel PyTorch program, one process per GPU under
torchrun: each step a matmul ("compute" range) then an all_reduce of its
result ("all-reduce" range), as a TP layer does. --late-rank R --late-ms M:
rank R sleeps M ms before every 4th all-reduce, a known skew the collective
analysis must find (rank R last in those, by about M ms)."""
import argparse
import os
import time

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--late-rank", type=int, default=1)
    p.add_argument("--late-ms", type=float, default=2.0)
    args = p.parse_args()
    rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    x = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16) / 64
    for step in range(args.steps):
        torch.cuda.nvtx.range_push("compute")
        y = x @ w
        torch.cuda.nvtx.range_pop()
        if rank == args.late_rank and step % 4 == 0:
            torch.cuda.synchronize()
            time.sleep(args.late_ms / 1000)
        torch.cuda.nvtx.range_push("all-reduce")
        dist.all_reduce(y)
        torch.cuda.nvtx.range_pop()
        x = y / y.norm()
    torch.cuda.synchronize()
    print(f"RANK {rank} pid={os.getpid()} steps={args.steps}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
