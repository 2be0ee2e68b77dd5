#!/usr/bin/env bash
# Runs on the GPU machine: a concurrency sweep of the built-in server
# (serve-llama-1b.toml, random 256-token prompts, 64 output tokens) recorded
# with bench serve --server, every point its own run of one sweep group; then
# what capture costs the client's TPOT at concurrency 1: the same load against
# the same server untraced, in the same session.
# Usage: sweep-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
runner=$build/app/warpscope-workload
preset=$src/resources/workloads/serve-llama-1b.toml
db=$out/sweep.wsdb
rm -f "$db"*
port=8471
load=(--model serve-llama-1b --input-len 256 --output-len 64 --ignore-eos --seed 1)
ws_header

echo "== sweep, max-concurrency 1,4,16,64, recorded with --server"
timeout 560 "$cli" bench serve --endpoint "http://127.0.0.1:$port" "${load[@]}" --num-prompts 64 \
  --sweep max-concurrency=1,4,16,64 --goodput ttft:200,tpot:20 --label builtin-1b --db "$db" \
  --server-timeout 300 --server -- "$runner" serve "$preset" --port "$port" > "$tmp/sweep.txt" 2>&1 || fail=1
grep -aE "^\[warpscope\] (sweep|point)|sweep point|point [0-9]" "$tmp/sweep.txt" | head -8
"$cli" sweep --db "$db" | head -3
group=$("$cli" sweep --db "$db" --json | python3 -c "import json,sys; j=json.load(sys.stdin); print((j[0] if isinstance(j, list) else j)['group'])" 2>/dev/null)
[ -n "$group" ] && "$cli" sweep "$group" --db "$db"

echo "== TPOT at concurrency 1: untraced server beside the recorded point"
ws_start_server "$tmp/server.txt" "$preset" "$((port + 1))" || fail=1
timeout 120 "$cli" bench serve --endpoint "http://127.0.0.1:$((port + 1))" "${load[@]}" --num-prompts 64 \
  --max-concurrency 1 --label untraced-c1 --db "$db" > "$tmp/untraced.txt" 2>&1 || fail=1
kill -INT "$server" 2>/dev/null
wait "$server"
grep -aE "^(requests|throughput|ttft|tpot)" "$tmp/untraced.txt"
"$cli" ls --db "$db"
ws_finish
