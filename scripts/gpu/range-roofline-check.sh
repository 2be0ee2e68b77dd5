#!/usr/bin/env bash
# Runs on the GPU machine: the built-in decoder (Llama-3.2-1B shape cut to 4
# layers: every kernel is replayed once per counter pass, and the quality
# check runs the reference variant too) recorded with hardware counters
# (record --metrics roofline), eager and with CUDA graphs,
# then `roofline RUN --by range`: a point per operation range (attention, mlp,
# lm head, …), from the kernels launched inside each (eager) or captured
# inside each and replayed (graphs).
# Usage: range-roofline-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
db=$out/range-roofline.wsdb; rm -f "$db"*
ws_header
short=(prompt_tokens=128 output_tokens=8 requests=1 warmup_requests=0 layers=4)
eager=$(ws_preset_variant llama-3.2-1b-bf16.toml llama-1b-eager-counters "${short[@]}" cuda_graphs=false)
graphs=$(ws_preset_variant llama-3.2-1b-bf16.toml llama-1b-graphs-counters "${short[@]}" cuda_graphs=true)
run=0
for config in "$eager" "$graphs"; do
  run=$((run + 1))
  SECONDS=0
  timeout 270 "$cli" record --db "$db" --metrics roofline --progress none --workload "$config" \
    > "$out/record-$run.log" 2>&1 || echo "record of $(basename "$config") ended with $?"
  echo "== $(basename "$config" .toml): ${SECONDS} s"
  "$cli" show "$run" --db "$db" | grep -E "status|kernels|capture" | head -5
  "$cli" roofline "$run" --by range --db "$db" || fail=1
  "$cli" summary "$run" --db "$db" | grep -E "^CUDA graphs" || true
done
ws_finish
