#!/usr/bin/env python3
"""NCCL calls of known sizes in one process (world size 1, as one GPU
allows): all_reduce, all_gather and broadcast of tensors whose byte sizes it
prints as "EXPECT <collective> <bytes> <calls>", for nccl-payload-check.sh to
hold against what a recording stored from NCCL's NVTX payloads."""
import os

import torch
import torch.distributed as dist


def main():
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    torch.cuda.set_device(0)
    dist.init_process_group("nccl")
    print("NCCL", ".".join(map(str, torch.cuda.nccl.version())))
    a = torch.ones(1 << 21, device="cuda", dtype=torch.bfloat16)  # 4 MiB
    g = torch.ones(1 << 18, device="cuda", dtype=torch.float32)  # 1 MiB
    gathered = torch.empty(1 << 18, device="cuda", dtype=torch.float32)
    b = torch.ones(3000, device="cuda", dtype=torch.int32)  # 12,000 bytes
    for _ in range(10):
        dist.all_reduce(a)
    for _ in range(5):
        dist.all_gather_into_tensor(gathered, g)
    for _ in range(3):
        dist.broadcast(b, src=0)
    torch.cuda.synchronize()
    print("EXPECT AllReduce", a.numel() * a.element_size(), 10)
    print("EXPECT AllGather", g.numel() * g.element_size(), 5)
    print("EXPECT Broadcast", b.numel() * b.element_size(), 3)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
