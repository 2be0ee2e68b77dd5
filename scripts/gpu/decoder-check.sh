#!/usr/bin/env bash
# Runs on the GPU machine: the kernel and decoder GPU tests, then the decoder
# end-to-end targets (untraced, side by side in one session), then the sample
# comparison set recorded through warpscope-cli record into OUT/samples.wsdb.
# Usage: decoder-check.sh BUILD_DIR OUT_DIR
# SAMPLES_DB=FILE appends the sample set to that store; SKIP_E2E=1 skips the
# tests and the untraced targets, SKIP_SAMPLES=1 the recorded sample set.
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli; runner=$build/app/warpscope-workload
ws_header

l1=llama-3.2-1b-bf16.toml; l8=llama-3.1-8b-bf16.toml
if [ -z "${SKIP_E2E:-}" ]; then
echo "== GPU tests"
for t in kernel_ladder_gpu_tests decoder_gpu_tests; do
  "$build/tests/gpu/$t" >> "$out/gpu-tests.txt" 2>&1 || fail=1
done
grep -E "^\[  (PASSED|FAILED) |Failure|exception" "$out/gpu-tests.txt" | head -20

echo "== end-to-end targets, untraced"
for cfg in \
  "$(ws_preset_variant $l1 e2e-1b-optimized-graphs variant='"optimized"' cuda_graphs=true)" \
  "$(ws_preset_variant $l1 e2e-1b-cublas-graphs variant='"cublas"' cuda_graphs=true)" \
  "$(ws_preset_variant $l8 e2e-8b-optimized-graphs variant='"optimized"' cuda_graphs=true)" \
  "$(ws_preset_variant $l8 e2e-8b-cublas-graphs variant='"cublas"' cuda_graphs=true)" \
  "$(ws_preset_variant $l8 e2e-8b-batch8-optimized-graphs variant='"optimized"' cuda_graphs=true batch=8)" \
  "$(ws_preset_variant $l8 e2e-8b-batch8-cublas-graphs variant='"cublas"' cuda_graphs=true batch=8)" \
  "$(ws_preset_variant $l8 e2e-8b-prefill2k-optimized variant='"optimized"' prompt_tokens=2048 output_tokens=4)" \
  "$(ws_preset_variant $l8 e2e-8b-prefill2k-cublas variant='"cublas"' prompt_tokens=2048 output_tokens=4)"; do
  echo "-- $(basename "$cfg" .toml)"
  "$runner" run "$cfg" 2>&1 | grep -v '^$' || fail=1
done
fi

[ -n "${SKIP_SAMPLES:-}" ] && ws_finish
echo "== sample comparison set (Llama-3.2-1B shape), recorded"
db=${SAMPLES_DB:-$out/samples.wsdb}; [ -n "${SAMPLES_DB:-}" ] || rm -f "$db"*
declare -A cfgs
for spec in \
  "reference variant=\"reference\" cuda_graphs=false" \
  "optimized variant=\"optimized\" cuda_graphs=false" \
  "optimized-graphs variant=\"optimized\" cuda_graphs=true" \
  "cublas-graphs variant=\"cublas\" cuda_graphs=true" \
  "int8-graphs variant=\"optimized\" cuda_graphs=true precision=\"int8-weight-only\"" \
  "batch8-cublas-graphs variant=\"cublas\" cuda_graphs=true batch=8"; do
  read -r name fields <<< "$spec"
  # shellcheck disable=SC2086  # fields: key=value words
  # SAMPLE_OUTPUT_TOKENS shortens the decode of each request (a smaller store).
  cfg=$(ws_preset_variant $l1 "llama-3.2-1b-$name" $fields output_tokens=${SAMPLE_OUTPUT_TOKENS:-128})
  cfgs[$name]=$cfg
  "$cli" record --db "$db" --progress none --workload "$cfg" > "$tmp/$name.log" 2>&1 || { fail=1; tail -5 "$tmp/$name.log"; }
  { echo "-- $name"; cat "$tmp/$name.log"; } >> "$out/samples.log"
  grep -E "TTFT|TPOT|quality|run [0-9]+" "$tmp/$name.log"
done
# SERIES=N records the optimized and cuBLAS variants (with graphs) N times in
# all, a series each, so `compare --series` shows run-to-run variance.
for name in optimized-graphs cublas-graphs; do
  for ((i = 2; i <= ${SERIES:-1}; i++)); do
    "$cli" record --db "$db" --progress none --workload "${cfgs[$name]}" > "$tmp/$name-$i.log" 2>&1 || { fail=1; tail -5 "$tmp/$name-$i.log"; }
    grep -E "TTFT|TPOT|run [0-9]+" "$tmp/$name-$i.log"
  done
done
"$cli" ls --db "$db"
ids=$("$cli" ls --db "$db" --json | python3 -c 'import json,sys; print(" ".join(str(r["id"]) for r in json.load(sys.stdin) if r["workload"].startswith("llama-3.2-1b")))')
for id in $ids; do "$cli" stats "$id" --db "$db" | head -12; done
# shellcheck disable=SC2086  # ids: run ids, one word each
set -- $ids
"$cli" compare "$2" "${@:3}" --db "$db" --top 8 | head -60
ws_finish
