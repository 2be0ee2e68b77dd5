#!/usr/bin/env bash
# Runs on the GPU machine: why CUPTI's PC-sampling hardware buffer fills in the
# GEMM ladder (every kernel after the first went unsampled, docs/benchmarks.md
# "Stall reasons against Nsight Compute"). The ladder recorded with
# --pc-sampling under each setting of the sampler (VARIANTS, names below);
# for each, the sampler's own line and the samples each kernel got.
# Usage: pc-buffer-experiment.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
ws_header
# CUPTI's own period (2^11) with each remedy, and 2^13, the default since.
declare -A variants=(
  [base]="|--pc-sampling-period 11"
  [drain1]="WARPSCOPE_PC_DRAIN_AT=1|--pc-sampling-period 11"
  [hw2g]="WARPSCOPE_PC_HW_BUFFER_MB=2048|--pc-sampling-period 11"
  [worker1]="WARPSCOPE_PC_WORKER_MS=1|--pc-sampling-period 11"
  [period13]="|--pc-sampling-period 13"
)
cfg=$tmp/gemm.toml
ws_kernel_config "$cfg" gemm-pc gemm_bf16 all "m = 4096, n = 4096, k = 4096" "${ITERATIONS:-40}" 3
db=$out/pc-buffer.wsdb; rm -f "$db"*
run=0
for name in ${VARIANTS:-base drain1 hw2g worker1 period13}; do
  IFS='|' read -r envs opts <<<"${variants[$name]}"
  # shellcheck disable=SC2086  # words of a variant
  env $envs "$cli" record --db "$db" --pc-sampling $opts --progress none --label "$name" \
    --workload "$cfg" > "$out/$name.log" 2>&1 || fail=1
  run=$((run + 1))
  echo "== $name: $(grep -h "PC sampling:" "$out/$name.log" | head -1)"
  "$cli" summary $run --db "$db" --json | python3 -c 'import json,sys
for k in json.load(sys.stdin)["kernels"]:
    if k["time_percent"] >= 1: print(k["demangled"])' | while read -r kernel; do
    "$cli" kernel $run "$kernel" --db "$db" --json |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print("  %-28s %12s samples" % (d["name"], (d.get("pc_sampling") or {}).get("samples", 0)))'
  done
done
ws_finish
