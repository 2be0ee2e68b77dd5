#!/usr/bin/env python3
"""Writes tests/data/vllm_result.json in the format of vLLM's
`vllm bench serve --save-result`, with the summary fields computed the way
vLLM's calculate_metrics() computes them (numpy's mean, population std,
median and linear percentiles, re-implemented here in plain Python so the
fixture needs no numpy). The C++ import must reproduce these numbers."""
import json
import math
import random


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def std(xs):
    if not xs:
        return 0.0
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def percentile(xs, p):
    if not xs:
        return 0.0
    s = sorted(xs)
    rank = p / 100 * (len(s) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (rank - lo)


random.seed(7)
n = 40
input_lens, output_lens, ttfts, itls, errors = [], [], [], [], []
for i in range(n):
    failed = i == 17  # one failed request, as vLLM records it
    out = 0 if failed else (1 if i == 5 else random.randint(16, 64))
    input_lens.append(random.randint(100, 900))
    output_lens.append(out)
    ttfts.append(0.0 if failed else random.uniform(0.02, 0.4))
    itls.append([] if failed or out <= 1 else [random.uniform(0.008, 0.03) for _ in range(out - 1)])
    errors.append("Bad Request" if failed else "")

duration = 12.5
ok = [i for i in range(n) if errors[i] == ""]
latencies = {i: ttfts[i] + sum(itls[i]) for i in ok}
tpots = [(latencies[i] - ttfts[i]) / (output_lens[i] - 1) for i in ok if output_lens[i] > 1]
all_itls = [x for i in ok for x in itls[i]]
ttft_list = [ttfts[i] for i in ok]
e2els = [latencies[i] for i in ok]
total_input = sum(input_lens[i] for i in ok)
total_output = sum(output_lens[i] for i in ok)
slo = {"ttft": 300.0, "tpot": 25.0}
good = sum(1 for i in ok if ttfts[i] * 1000 <= slo["ttft"] and
           (output_lens[i] <= 1 or (latencies[i] - ttfts[i]) / (output_lens[i] - 1) * 1000 <= slo["tpot"]))

result = {
    "date": "20261201-101500", "backend": "vllm", "model_id": "meta-llama/Llama-3.2-1B",
    "tokenizer_id": "meta-llama/Llama-3.2-1B", "num_prompts": n, "request_rate": "inf",
    "burstiness": 1.0, "max_concurrency": 8,
    "duration": duration, "completed": len(ok), "total_input_tokens": total_input,
    "total_output_tokens": total_output, "request_throughput": len(ok) / duration,
    "request_goodput": good / duration, "output_throughput": total_output / duration,
    "total_token_throughput": (total_input + total_output) / duration,
    "input_lens": input_lens, "output_lens": output_lens, "ttfts": ttfts, "itls": itls,
    "generated_texts": ["..." for _ in range(n)], "errors": errors,
}
for name, xs in (("ttft", ttft_list), ("tpot", tpots), ("itl", all_itls), ("e2el", e2els)):
    ms = [x * 1000 for x in xs]
    result[f"mean_{name}_ms"] = mean(ms)
    result[f"median_{name}_ms"] = percentile(ms, 50)
    result[f"std_{name}_ms"] = std(ms)
    for p in (90, 99):
        result[f"p{p}_{name}_ms"] = percentile(ms, p)
json.dump(result, open("tests/data/vllm_result.json", "w"), indent=1)
print("wrote tests/data/vllm_result.json: goodput SLO", slo)
