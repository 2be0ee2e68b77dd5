#!/usr/bin/env python3
"""Writes a real PyTorch profiler (Kineto) trace of a small Llama-shaped model
generating tokens, with record_function ranges that follow Warpscope's token
convention, for the importer's tests (tests/data/kineto_llama_h200.json).
Usage: torch_profiler_trace.py OUT.json [--tokens N]"""
import argparse

import torch
from torch.profiler import ProfilerActivity, profile, record_function
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.generation.streamers import BaseStreamer


class TokenRanges(BaseStreamer):
    def __init__(self):
        self.seen_prompt = False

    def put(self, value):
        if not self.seen_prompt:
            self.seen_prompt = True
            return
        torch.cuda.synchronize()  # the token exists once its kernels finished
        with record_function("ws.token:0"):
            pass

    def end(self):
        pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--tokens", type=int, default=6)
    p.add_argument("--prompt", type=int, default=32)
    args = p.parse_args()
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, vocab_size=4096,
                         max_position_embeddings=512)
    model = LlamaForCausalLM(config).to(device="cuda", dtype=torch.bfloat16).eval()
    prompt = torch.randint(0, config.vocab_size, (1, args.prompt), device="cuda")
    with torch.no_grad():
        model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)  # warm-up
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            host = torch.arange(4096, dtype=torch.float32).pin_memory()
            staged = host.to("cuda", non_blocking=True)  # one HtoD copy of 16 KiB
            staged.zero_()
            with record_function(f"ws.request:0:prompt={args.prompt}"):
                out = model.generate(prompt, max_new_tokens=args.tokens,
                                     min_new_tokens=args.tokens, do_sample=False,
                                     streamer=TokenRanges())
                torch.cuda.synchronize()
    prof.export_chrome_trace(args.out)
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    print(f"generated {out.shape[1] - args.prompt} tokens; {kernels} GPU events; trace {args.out}")


if __name__ == "__main__":
    main()
