#!/usr/bin/env python3
"""A Llama-shaped model from a config with random weights (no download),
generating tokens inside NVTX ranges that follow Warpscope's token convention
(docs/token-conventions.md). Recorded with no change by `warpscope-cli record`."""
import argparse

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.generation.streamers import BaseStreamer


class NvtxTokenMarks(BaseStreamer):
    """generate() calls put() with the prompts first, then once per decode step
    with one new token for each request of the batch."""

    def __init__(self, batch):
        self.batch = batch
        self.seen_prompt = False

    def put(self, value):
        if not self.seen_prompt:
            self.seen_prompt = True
            return
        torch.cuda.synchronize()  # the tokens exist once their kernels finished
        for request in range(self.batch):
            torch.cuda.nvtx.mark(f"ws.token:{request}")

    def end(self):
        pass


def llama_model():
    """The Llama-shaped model of Warpscope's PyTorch checks (hidden 1024, 8
    layers, GQA 16/4, bf16, random weights seeded 0), on the GPU."""
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                         num_attention_heads=16, num_key_value_heads=4, vocab_size=32000,
                         max_position_embeddings=2048)
    return LlamaForCausalLM(config).to(device="cuda", dtype=torch.bfloat16).eval(), config


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--prompt", type=int, default=128)
    p.add_argument("--batch", type=int, default=1)
    args = p.parse_args()
    model, config = llama_model()
    prompt = torch.randint(0, config.vocab_size, (args.batch, args.prompt), device="cuda")
    with torch.no_grad():
        model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)  # warm-up
        torch.cuda.synchronize()
        for request in range(args.batch):  # the batch's requests all arrive now
            torch.cuda.nvtx.range_push(f"ws.request:{request}:prompt={args.prompt}")
        out = model.generate(prompt, max_new_tokens=args.tokens, min_new_tokens=args.tokens,
                             do_sample=False, streamer=NvtxTokenMarks(args.batch))
        torch.cuda.synchronize()
        for _ in range(args.batch):
            torch.cuda.nvtx.range_pop()
    print(f"generated {out.shape[1] - args.prompt} tokens")


if __name__ == "__main__":
    main()
