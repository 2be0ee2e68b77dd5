#!/usr/bin/env bash
# Runs on the GPU machine: a concurrency sweep of the built-in server
# (serve-llama-1b.toml, random 256-token prompts, 64 output tokens) recorded
# with bench serve --server, every point its own run of one sweep group; then
# what capture costs the client's TPOT at concurrency 1: the same load against
# the same server untraced, in the same session.
# Usage: [MODEL=serve-llama-8b] [SWEEP=1,4,16,64,128] [PROMPTS=128] [INPUT_LEN=1024 OUTPUT_LEN=256]
#        sweep-check.sh BUILD_DIR OUT_DIR
# MODEL names a preset in resources/workloads (default serve-llama-1b), SWEEP
# the concurrencies (default 1,4,16,64), PROMPTS the requests a point (64),
# UNTRACED_PROMPTS those of the untraced concurrency-1 load (PROMPTS),
# GRAPH_TRACE node|graph how the recorded server's CUDA graphs are traced (node),
# INPUT_LEN and OUTPUT_LEN the random prompts' tokens (256 and 64).
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
runner=$build/app/warpscope-workload
model=${MODEL:-serve-llama-1b}
sweep=${SWEEP:-1,4,16,64}
prompts=${PROMPTS:-64}
preset=$src/resources/workloads/$model.toml
db=$out/sweep.wsdb
rm -f "$db"*
port=8471
load=(--model "$model" --input-len "${INPUT_LEN:-256}" --output-len "${OUTPUT_LEN:-64}" --ignore-eos --seed 1)
ws_header

echo "== $model: sweep, max-concurrency $sweep, $prompts requests a point, recorded with --server"
timeout ${SWEEP_TIMEOUT:-430} "$cli" bench serve --endpoint "http://127.0.0.1:$port" "${load[@]}" --num-prompts "$prompts" \
  --sweep "max-concurrency=$sweep" --goodput ttft:200,tpot:20 --label "$model" --db "$db" \
  --server-timeout 300 --graph-trace "${GRAPH_TRACE:-node}" --server -- "$runner" serve "$preset" --port "$port" > "$tmp/sweep.txt" 2>&1 || fail=1
grep -aE "^\[warpscope\] (sweep|point)|sweep point|point [0-9]" "$tmp/sweep.txt" | head -8
"$cli" sweep --db "$db" | head -3
group=$("$cli" sweep --db "$db" --json | python3 -c "import json,sys; j=json.load(sys.stdin); print((j[0] if isinstance(j, list) else j)['group'])" 2>/dev/null)
[ -n "$group" ] && "$cli" sweep "$group" --db "$db"

echo "== TPOT at concurrency 1: untraced server beside the recorded point"
ws_start_server "$tmp/server.txt" "$preset" "$((port + 1))" || fail=1
timeout 120 "$cli" bench serve --endpoint "http://127.0.0.1:$((port + 1))" "${load[@]}" --num-prompts "${UNTRACED_PROMPTS:-$prompts}" \
  --max-concurrency 1 --label untraced-c1 --db "$db" > "$tmp/untraced.txt" 2>&1 || fail=1
kill -INT "$server" 2>/dev/null
wait "$server"
grep -aE "^(requests|throughput|ttft|tpot)" "$tmp/untraced.txt"
"$cli" ls --db "$db"
ws_finish
