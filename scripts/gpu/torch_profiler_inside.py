#!/usr/bin/env python3
"""A program that starts its own torch.profiler while `warpscope-cli record`
traces it: CUPTI takes one callback subscriber per process, and the activity
buffers' callbacks are process-wide. Prints how many kernels torch.profiler saw,
so the recording's count can be set beside it."""
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.randn(1024, 1024, device="cuda")
for _ in range(10):  # before the profiler: only the recording sees these
    x = torch.relu(x @ x)
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(20):
        x = torch.relu(x @ x)
    torch.cuda.synchronize()
seen = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
for _ in range(10):  # after it
    x = torch.relu(x @ x)
torch.cuda.synchronize()
print(f"TORCH_PROFILER_KERNELS {seen}")
print("PROGRAM_OK")
