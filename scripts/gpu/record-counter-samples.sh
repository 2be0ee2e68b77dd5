#!/usr/bin/env bash
# Runs on the GPU machine: adds counter passes (record --metrics roofline) of
# the GEMM and GEMV ladders to a sample store, so the roofline from hardware
# counters shows without a GPU. Usage: record-counter-samples.sh BUILD_DIR DB
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR DB" 2 "$@"
db=$2
cli=$build/app/warpscope-cli
ws_header
cat > "$tmp/gemm.toml" <<TOML
name = "gemm-bf16-2048"
kind = "kernel"
description = "bf16 GEMM 2048³, every rung, one counter pass"
[kernel]
name = "gemm_bf16"
rung = "all"
shape = { m = 2048, n = 2048, k = 2048 }
iterations = 3
warmup = 0
TOML
cat > "$tmp/gemv.toml" <<TOML
name = "gemv-bf16-8192"
kind = "kernel"
description = "bf16 GEMV 8192 × 8192, batch 1, every rung, one counter pass"
[kernel]
name = "gemv_bf16"
rung = "all"
shape = { batch = 1, k = 8192, n = 8192 }
iterations = 3
warmup = 0
TOML
"$cli" record --db "$db" --label "GEMM ladder 2048³, hardware counters" --metrics roofline \
  --progress none --workload "$tmp/gemm.toml" > /dev/null || fail=1
"$cli" record --db "$db" --label "GEMV ladder 8192², hardware counters" --metrics roofline \
  --progress none --workload "$tmp/gemv.toml" > /dev/null || fail=1
"$cli" ls --db "$db" | tail -3
ws_finish
