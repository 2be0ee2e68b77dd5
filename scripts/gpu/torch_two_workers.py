#!/usr/bin/env python3
"""A parent and two workers it spawns (multiprocessing 'spawn', as vLLM and
SGLang start their engines), all on one GPU and each on its default stream:
the parent runs 10 matmuls, each worker 50 + 10 x its rank. Prints what each
launched so a recording can be checked process by process. --kill-rank R:
worker R kills itself (SIGKILL) after its matmuls instead of exiting."""
import os
import signal
import sys

import torch
import torch.multiprocessing as mp


def work(rank, kill_rank):
    x = torch.randn(512, 512, device="cuda")
    n = 50 + 10 * rank
    torch.cuda.nvtx.range_push(f"worker {rank}")
    for _ in range(n):
        x = x @ x
        x = x / x.norm()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(f"WORKER pid={os.getpid()} rank={rank} matmuls={n}", flush=True)
    if rank == kill_rank:
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    kill_rank = int(sys.argv[sys.argv.index("--kill-rank") + 1]) if "--kill-rank" in sys.argv else 0
    mp.set_start_method("spawn")
    y = torch.randn(512, 512, device="cuda")
    for _ in range(10):
        y = y @ y
    torch.cuda.synchronize()
    print(f"PARENT pid={os.getpid()} matmuls=10", flush=True)
    workers = [mp.Process(target=work, args=(rank, kill_rank)) for rank in (1, 2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
