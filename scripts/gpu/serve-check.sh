#!/usr/bin/env bash
# Runs on the GPU machine: the serving GPU tests (paged attention against the
# contiguous rungs, the server against the offline decoder, batching and pool
# accounting), then the serving targets on the Llama-3.1-8B shape (bf16,
# random weights, prompt 1024, output 256), untraced:
#   - TPOT of the offline decoder and of the server at concurrency 1;
#   - the server's decode step time against its floor, by batch
#     (serving_step_bench: (weights + KV bytes) / measured copy bandwidth);
#   - the server's output throughput and TTFT p99 at concurrency 64 and 128
#     (warpscope-cli bench serve), beside the floor's throughput.
# Usage: serve-check.sh BUILD_DIR OUT_DIR
# SKIP_TESTS=1 skips the GPU tests; PORT (default 18000) is the server's port.
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli; runner=$build/app/warpscope-workload
presets=$src/resources/workloads
port=${PORT:-18000}
prompt=1024; output=256
context=$((prompt + output / 2))  # the mean context of a request's decode steps
ws_header

if [ -z "${SKIP_TESTS:-}" ]; then
  echo "== serving GPU tests"
  for t in paged_attention_gpu_tests serving_gpu_tests; do
    timeout 240 "$build/tests/gpu/$t" >> "$out/serve-gpu-tests.txt" 2>&1 || fail=1
  done
  grep -E "^\[  (PASSED|FAILED) |^\[       OK|Failure|exception" "$out/serve-gpu-tests.txt" | head -30
fi

echo "== offline decoder, Llama-3.1-8B shape, batch 1, prompt $prompt, output $output"
decoder=$tmp/decoder-8b.toml
sed -e 's/^name = .*/name = "serve-check-decoder-8b"/' -e "s/^prompt_tokens = .*/prompt_tokens = $prompt/" \
  -e "s/^output_tokens = .*/output_tokens = $output/" -e 's/^requests = .*/requests = 2/' \
  "$presets/llama-3.1-8b-bf16.toml" > "$decoder"
timeout 180 "$runner" run "$decoder" > "$out/decoder-8b.txt" 2>&1 || fail=1
grep -E "^(TTFT|TPOT)" "$out/decoder-8b.txt"
decoder_tpot=$(sed -n 's/^TPOT \([0-9.]*\) ms.*/\1/p' "$out/decoder-8b.txt")

echo "== decode step time against its floor, by batch (context $context)"
echo "-- the decoder's own kernels at every batch (serve.linear = \"decoder\")"
timeout 120 "$build/tests/gpu/serving_step_bench" "$presets/serve-llama-8b.toml" \
  --context "$context" --steps 40 --linear decoder > "$out/step-bench-decoder.txt" 2>&1 || fail=1
cat "$out/step-bench-decoder.txt"
echo "-- as the server runs (serve.linear = \"tuned\": own rung or cuBLAS, timed at start)"
timeout 120 "$build/tests/gpu/serving_step_bench" "$presets/serve-llama-8b.toml" \
  --context "$context" --steps 40 > "$out/step-bench.txt" 2>&1 || fail=1
cat "$out/step-bench.txt"

echo "== server (serve-llama-8b.toml) under warpscope-cli bench serve"
ws_start_server "$out/server.txt" "$presets/serve-llama-8b.toml" "$port" || fail=1
grep -E "KV pool|ready|serve:|linear" "$out/server.txt"
# bench CONCURRENCY PROMPTS: one bench serve run, its summary kept in $out/bench-cN.txt.
bench() {
  timeout 120 "$cli" bench serve --endpoint "http://127.0.0.1:$port" --model serve-llama-8b \
    --input-len "$prompt" --output-len "$output" --ignore-eos --max-concurrency "$1" \
    --num-prompts "$2" --db "$tmp/bench.wsdb" > "$out/bench-c$1.txt" 2>&1 || fail=1
  grep -E "^(requests|throughput|ttft|tpot)" "$out/bench-c$1.txt"
}
for spec in "1 3" "64 64" "128 128"; do
  echo "-- concurrency ${spec% *}"
  bench $spec
done
kill -INT "$server" 2>/dev/null
wait "$server" || fail=1
tail -1 "$out/server.txt"

# The summary: figures pulled from the outputs above.
field() {  # FILE ROW COLUMN: a number of a bench summary table row
  awk -v row="$2" -v col="$3" '$1 == row { print $col }' "$1"
}
throughput() { sed -n 's/.*req\/s, \([0-9.]*\) output tok\/s.*/\1/p' "$1"; }
floor_tps() { awk -v b="$1" '$1 == b { printf "%.0f", b / $3 * 1000 }' "$out/step-bench.txt"; }
echo "== summary (Llama-3.1-8B shape, bf16, prompt $prompt, output $output)"
server_tpot=$(field "$out/bench-c1.txt" tpot 2)
printf "TPOT at concurrency 1: offline decoder %s ms, server %s ms, server/decoder %s\n" \
  "${decoder_tpot:-?}" "${server_tpot:-?}" \
  "$(awk -v a="${server_tpot:-0}" -v b="${decoder_tpot:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "?" }')"
printf "%12s %14s %14s %12s %12s\n" concurrency "output tok/s" "floor tok/s" "TTFT p99 ms" "TPOT ms"
for c in 64 128; do
  printf "%12s %14s %14s %12s %12s\n" "$c" "$(throughput "$out/bench-c$c.txt")" "$(floor_tps "$c")" \
    "$(field "$out/bench-c$c.txt" ttft 6)" "$(field "$out/bench-c$c.txt" tpot 2)"
done
ws_finish
