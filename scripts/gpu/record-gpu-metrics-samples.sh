#!/usr/bin/env bash
# Runs on the GPU machine: the two runs with GPU metric tracks added to the
# sample store (resources/samples/): a PyTorch Llama-shaped generate() and the
# built-in 1B server under bench serve --server, both with --gpu-metrics.
# Usage: record-gpu-metrics-samples.sh BUILD_DIR OUT_DIR  (PORT, default 18200)
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
db=$out/gpu-metrics-samples.wsdb; rm -f "$db"*
port=${PORT:-18200}
ws_header
"$cli" record --db "$db" --label "torch generate, batch 4, GPU metrics" --gpu-metrics --progress none \
  --workload "$src/resources/workloads/torch-llama-generate.toml" -- \
  python3 "$here/torch_llama_generate.py" --tokens 32 --batch 4 || fail=1
"$cli" bench serve --db "$db" --label "1B server, concurrency 16, GPU metrics" --port "$port" \
  --model serve-llama-1b --num-prompts 64 --max-concurrency 16 --random-input-len 256 \
  --random-output-len 64 --gpu-metrics --server-timeout 300 \
  --server -- "$build/app/warpscope-workload" serve "$src/resources/workloads/serve-llama-1b.toml" \
  --port "$port" || fail=1
"$cli" ls --db "$db"
for run in 1 2; do "$cli" gpu-metrics $run --db "$db" --by kernel --top 5 || fail=1; done
ls -l "$db"
ws_finish
