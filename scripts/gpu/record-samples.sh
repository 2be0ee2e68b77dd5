#!/usr/bin/env bash
# Runs on the GPU machine: records the sample runs shipped in
# resources/samples/ (real H200 captures for machines without a GPU).
# Usage: record-samples.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=$(cd "$1" && pwd); out=$2; mkdir -p "$out"
cli=$build/app/warpscope-cli; here=$(cd "$(dirname "$0")" && pwd)
db=$out/h200-captures.wsdb; rm -f "$db"*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for batch in 1 4; do
  $cli record --db "$db" --label "torch generate, batch $batch" --variant "batch$batch" \
    --workload resources/workloads/torch-llama-generate.toml --progress none -- \
    python3 "$here/torch_llama_generate.py" --tokens 32 --batch "$batch"
done
$cli record --db "$db" --label "triton vector add" --progress none -- python3 "$here/triton_vector_add.py"
$cli record --db "$db" --label "capture fixture" --progress none -- "$build/tests/gpu/capture_fixture" fixture > /dev/null
$cli ls --db "$db"
for run in 1 2; do $cli stats $run --db "$db"; done
$cli compare 1 2 --db "$db" --top 8
$cli summary 2 --db "$db" --top 12
