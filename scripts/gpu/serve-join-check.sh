#!/usr/bin/env bash
# Runs on the GPU machine: bench serve --server joins the client's tokens and
# the server's kernels in one run, on one clock.
#   1. torch_spawn_server.py (PyTorch; its model runs in a spawned process, as
#      vLLM's and SGLang's engines do) under `bench serve --server`: kernels and
#      engine.step ranges must come from the spawned process; each client token
#      is compared with the engine's emit mark for it (delivery delay >= 0 on
#      one clock; its minimum and p50 are printed).
#   2. The built-in server on the GPU backend (resources/workloads/
#      serve-llama-1b.toml) under `bench serve --server`, where this build has
#      it: kernels, engine.step ranges and client tokens in one run.
# Usage: serve-join-check.sh BUILD_DIR OUT_DIR
# PORT (default 18100) and PORT+1 are the servers' ports; REQUESTS (default 32).
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli; runner=$build/app/warpscope-workload
port=${PORT:-18100}; requests=${REQUESTS:-32}
db=$out/serve-join.wsdb
rm -f "$db" "$db-wal" "$db-shm"
ws_header

# run_id FILE: the run a bench serve output stored ("[warpscope] run N ...").
run_id() { sed -n 's/^\[warpscope\] run \([0-9]*\) .*(the server and the client.*/\1/p' "$1" | tail -1; }

echo "== PyTorch server, engine in a spawned process, under bench serve --server"
timeout 900 "$cli" bench serve --endpoint "http://127.0.0.1:$port" --model torch-spawn \
  --num-prompts "$requests" --input-len 64 --output-len 32 --max-concurrency 1 \
  --label serve-join-torch-spawn --db "$db" --server-timeout 300 \
  --server -- python3 "$here/torch_spawn_server.py" --port "$port" > "$out/torch-spawn.txt" 2>&1 || fail=1
grep -E "^(stored run|ttft|tpot)|torch_spawn_server|^warpscope-cli bench|\[warpscope\] run" "$out/torch-spawn.txt"
run=$(run_id "$out/torch-spawn.txt")
if [ -n "$run" ]; then
  "$cli" export "$run" --db "$db" --format json -o "$tmp/spawn.json" || fail=1
  python3 "$here/serve_join_report.py" spawn "$tmp/spawn.json" "$requests" || fail=1
else
  echo "FAIL  no run stored"; fail=1
fi

echo "== built-in server, GPU backend (serve-llama-1b.toml), under bench serve --server"
preset=$src/resources/workloads/serve-llama-1b.toml
if [ ! -f "$preset" ]; then
  echo "skipped: $preset is not in this tree"
else
  timeout 900 "$cli" bench serve --endpoint "http://127.0.0.1:$((port + 1))" --model serve-llama-1b \
    --num-prompts "$requests" --input-len 256 --output-len 64 --ignore-eos --max-concurrency 8 \
    --label serve-join-builtin --db "$db" --server-timeout 300 \
    --server -- "$runner" serve "$preset" --port "$((port + 1))" > "$out/builtin.txt" 2>&1
  status=$?
  if grep -q "backend is not built yet" "$out/builtin.txt"; then
    echo "skipped: this build's warpscope-workload has no GPU serving backend"
  else
    [ "$status" -eq 0 ] || fail=1
    grep -E "^(stored run|ttft|tpot)|^warpscope-cli bench|\[warpscope\] run" "$out/builtin.txt"
    run=$(run_id "$out/builtin.txt")
    if [ -n "$run" ]; then
      "$cli" export "$run" --db "$db" --format json -o "$tmp/builtin.json" || fail=1
      python3 "$here/serve_join_report.py" builtin "$tmp/builtin.json" "$requests" || fail=1
    else
      echo "FAIL  no run stored"; fail=1
    fi
  fi
fi
"$cli" ls --db "$db"
ws_finish
