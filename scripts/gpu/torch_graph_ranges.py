#!/usr/bin/env python3
"""CUDA graphs and the ranges that captured them. Modes:

  three   torch.cuda.graph of 3 elementwise kernels, each inside its own NVTX
          range ("capture.mul", "capture.relu", "capture.add"), replayed 50
          times inside "replay": every replayed kernel should be credited to
          its capture-time range, none to "replay".
  compile torch.compile(mode="reduce-overhead") of a Llama-shaped model
          (random weights, no download); warm-up and the cudagraph capture run
          under torch.autograd.profiler.emit_nvtx, so the operators active at
          capture time are NVTX ranges; then 20 timed replays inside "replay".
"""
import argparse

import torch


def three(replays):
    x = torch.randn(1 << 20, device="cuda")
    y = torch.empty_like(x)
    y.copy_(x)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm-up on a side stream, as the docs ask
        y.mul_(2.0)
        y.relu_()
        y.add_(1.0)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        torch.cuda.nvtx.range_push("capture.mul")
        y.mul_(2.0)
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("capture.relu")
        y.relu_()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("capture.add")
        y.add_(1.0)
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("replay")
    for _ in range(replays):
        g.replay()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print(f"REPLAYED {replays} x 3 kernels")


def compiled(replays):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                         num_attention_heads=16, num_key_value_heads=4, vocab_size=32000,
                         max_position_embeddings=2048)
    model = LlamaForCausalLM(config).to(device="cuda", dtype=torch.bfloat16).eval()
    step = torch.compile(model, mode="reduce-overhead", fullgraph=False)
    ids = torch.randint(0, config.vocab_size, (1, 64), device="cuda")
    with torch.no_grad():
        with torch.autograd.profiler.emit_nvtx(record_shapes=False):
            for _ in range(3):  # compile, record, capture
                step(input_ids=ids, use_cache=False)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("replay")
        for _ in range(replays):
            step(input_ids=ids, use_cache=False)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    print(f"REPLAYED {replays} compiled forward passes")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["three", "compile"])
    p.add_argument("--replays", type=int, default=50)
    args = p.parse_args()
    (three if args.mode == "three" else compiled)(args.replays)


if __name__ == "__main__":
    main()
