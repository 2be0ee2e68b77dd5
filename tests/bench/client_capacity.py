#!/usr/bin/env python3
"""Client capacity of `bench serve` (issue 18: >= 100,000 streamed tokens/s
over 1,000 concurrent streams on one core, every chunk timestamped within
1 ms of its arrival). Starts Warpscope's server on the CPU backend pinned to
--server-cpus, drives it with `warpscope-cli bench serve` pinned to one core
(--client-cpu), and prints what the client reported: output tok/s, the load
loop's CPU per chunk (so the tokens/s one core could take: 1e6 / µs per
chunk), and how long after the server's write each chunk was stamped (the
server's ": emit" comments, same host, same clock).

    tests/bench/client_capacity.py --cli build/release/app/warpscope-cli \\
        --workload build/release/app/warpscope-workload [--streams 1000]
        [--prompts 3000] [--output-len 256] [--step-us 2000]
        [--client-cpu 0] [--server-cpus 1-15] [--http-clients socket,libcurl] [--rounds N]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

CONFIG = """name = "serve-cpu-capacity"
kind = "serve"
[serve]
backend = "cpu"
max_num_seqs = {seqs}
max_num_batched_tokens = 65536
block_size = 16
num_blocks = {blocks}
max_model_len = 1024
max_waiting = 8192
drain_timeout_s = 30
[serve.cpu]
step_us = {step_us}
seq_us = 0
prefill_token_us = 0
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--prompts", type=int, default=3000)
    ap.add_argument("--output-len", type=int, default=256)
    ap.add_argument("--step-us", type=int, default=2000)
    ap.add_argument("--client-cpu", default="0")
    ap.add_argument("--server-cpus", default="1")
    ap.add_argument("--port", type=int, default=8391)
    ap.add_argument("--http-clients", default="socket,libcurl",
                    help="bench serve's transports to compare, each against the same server")
    ap.add_argument("--rounds", type=int, default=1, help="alternating rounds of the clients")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="ws-client-capacity-")
    config = os.path.join(folder, "serve.toml")
    with open(config, "w") as f:
        blocks = args.streams * ((32 + args.output_len) // 16 + 2) + 64
        f.write(CONFIG.format(seqs=args.streams, blocks=blocks, step_us=args.step_us))
    server = subprocess.Popen(["taskset", "-c", args.server_cpus, args.workload, "serve", config,
                               "--port", str(args.port)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rows = []
    try:
        for line in server.stdout:
            if "ready" in line:
                break
        else:
            sys.exit("the server did not start")
        for round_ in range(args.rounds):
            for client in args.http_clients.split(","):
                rows.append(run_client(args, folder, client, round_))
    finally:
        server.terminate()
        server.wait(timeout=60)
    print("| client | streams | output tok/s | client CPU per chunk | one core's capacity | "
          "stamped after the write: p50 / p99 / max | added to TTFT p50 / p99 | "
          "to ITL p50 / p99 |")
    print("|---|---:|---:|---:|---:|---|---|---|")
    for row in rows:
        print(row)


def run_client(args, folder, client, round_):
    db = os.path.join(folder, "bench-%s-%d.wsdb" % (client, round_))
    t0 = time.perf_counter()
    out = subprocess.run(
        ["taskset", "-c", args.client_cpu, args.cli, "bench", "serve", "--endpoint",
         "http://127.0.0.1:%d" % args.port, "--model", "serve-cpu-capacity", "--dataset",
         "random", "--num-prompts", str(args.prompts), "--input-len", "32", "--output-len",
         str(args.output_len), "--ignore-eos", "--max-concurrency", str(args.streams),
         "--request-rate", "inf", "--http-client", client, "--db", db],
        capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit("bench serve failed: " + out.stderr[-2000:])
    tok = float(re.search(r"([\d.]+) output tok/s", out.stdout).group(1))
    found = re.search(r"client: ([\d.]+) s CPU, ([\d.]+) µs per chunk; stamped after the "
                      r"server's write: p50 ([\d.]+) µs, p99 ([\d.]+) µs, max ([\d.]+) µs; added "
                      r"to TTFT: p50 ([\d.]+) µs, p99 ([\d.]+) µs; to ITL: p50 ([\d.]+) µs, p99 "
                      r"([\d.]+) µs; chunks timed by (.*)", out.stdout)
    if not found:
        sys.exit("no client line in:\n" + out.stdout)
    cpu_s, per_chunk, p50, p99, mx, f50, f99, i50, i99 = (float(x) for x in found.groups()[:9])
    print("%s round %d: %d requests x %d tokens in %.1f s; client CPU %.1f s; chunks timed by %s"
          % (client, round_ + 1, args.prompts, args.output_len, wall, cpu_s, found.group(10)),
          file=sys.stderr)
    return ("| %s | %d | %.0f | %.1f µs | %.0f tok/s | %.0f µs / %.0f µs / %.1f ms | "
            "%.0f / %.0f µs | %.0f / %.0f µs |" %
            (client, args.streams, tok, per_chunk, 1e6 / per_chunk, p50, p99, mx / 1000, f50,
             f99, i50, i99))

if __name__ == "__main__":
    main()
