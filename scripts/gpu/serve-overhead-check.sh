#!/usr/bin/env bash
# Runs on the GPU machine: what recording a server costs its client's TPOT.
# The built-in 1B server (serve-llama-1b.toml, decode steps replayed as CUDA
# graphs) at concurrency 1: untraced, recorded with bench serve --server
# (graph kernels traced per node, the default) and with --graph-trace graph,
# alternating for ROUNDS rounds; medians of the client's TPOT p50.
# Usage: serve-overhead-check.sh BUILD_DIR OUT_DIR [ROUNDS]
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR [ROUNDS]" 2 "$@"
rounds=${3:-3}
cli=$build/app/warpscope-cli
runner=$build/app/warpscope-workload
preset=$src/resources/workloads/serve-llama-1b.toml
db=$out/serve-overhead.wsdb
rm -f "$db"*
port=8491
load=(--model serve-llama-1b --input-len 256 --output-len 64 --ignore-eos --seed 1
  --num-prompts 48 --max-concurrency 1 --db "$db")
tpot() { awk '$1 == "tpot" {print $3}'; }  # the median column of bench's table
ws_header
ws_start_server "$tmp/server.txt" "$preset" "$((port + 1))" || fail=1
for _ in $(seq "$rounds"); do
  echo "untraced $(timeout 120 "$cli" bench serve --endpoint "http://127.0.0.1:$((port + 1))" "${load[@]}" --label untraced 2>/dev/null | tpot)"
  for mode in node graph; do
    echo "$mode $(timeout 300 "$cli" bench serve --endpoint "http://127.0.0.1:$port" "${load[@]}" --label "$mode" \
      --graph-trace "$mode" --server -- "$runner" serve "$preset" --port "$port" 2>/dev/null | tpot)"
  done
done | tee "$out/serve-overhead.txt"
kill -INT "$server" 2>/dev/null
wait "$server"
python3 - "$out/serve-overhead.txt" <<'PY' || fail=1
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, *v = line.split()
    if v: rows[k].append(float(v[0]))
base = statistics.median(rows["untraced"])
for k in ("untraced", "node", "graph"):
    m = statistics.median(rows[k])
    print(f"{k:9s} TPOT p50 median {m:.3f} ms  {m/base:.3f} x untraced  rounds {rows[k]}")
PY
"$cli" ls --db "$db" | tail -3
ws_finish
