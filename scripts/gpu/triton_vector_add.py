#!/usr/bin/env python3
"""A Triton kernel in a plain script, recorded by `warpscope-cli record`."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def main():
    n = 1 << 24
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    torch.cuda.nvtx.range_push("triton_add")
    for _ in range(20):
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    assert torch.allclose(out, x + y)
    print("triton add ok")


if __name__ == "__main__":
    main()
