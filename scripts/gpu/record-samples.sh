#!/usr/bin/env bash
# Runs on the GPU machine: records the sample runs shipped in
# resources/samples/ (real H200 captures for machines without a GPU).
# Usage: record-samples.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
db=$out/h200-captures.wsdb; rm -f "$db"*
ws_header
for batch in 1 4; do
  "$cli" record --db "$db" --label "torch generate, batch $batch" --variant "batch$batch" \
    --workload "$src/resources/workloads/torch-llama-generate.toml" --progress none -- \
    python3 "$here/torch_llama_generate.py" --tokens 32 --batch "$batch" || fail=1
done
"$cli" record --db "$db" --label "triton vector add" --progress none -- python3 "$here/triton_vector_add.py" || fail=1
"$cli" record --db "$db" --label "capture fixture" --progress none -- "$build/tests/gpu/capture_fixture" fixture > /dev/null || fail=1
"$cli" ls --db "$db"
for run in 1 2; do "$cli" stats $run --db "$db" || fail=1; done
"$cli" compare 1 2 --db "$db" --top 8 || fail=1
"$cli" summary 2 --db "$db" --top 12 || fail=1
ws_finish
