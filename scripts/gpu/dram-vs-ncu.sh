#!/usr/bin/env bash
# Runs on the GPU machine: the counter pass's DRAM read and write bytes per
# kernel against Nsight Compute's on the same kernels, every rung of every
# ladder (the cuBLAS baselines are rungs). ncu runs with --cache-control all
# (its default) and none; Warpscope with its default cache policy and any
# others given in POLICIES (e.g. "all none"), each with the metric sets in
# SETS (default: dram, the one-pass set; "roofline" is the 12 counters of
# `--metrics roofline`, 4 replay passes on the H200, with its one-pass DRAM
# rerun). ITERATIONS sets the kernel configs' iterations (default 2), NCU_CLOCK
# ncu's --clock-control: default none, as Warpscope leaves clocks alone; ncu's
# own default (base) slows the SMs against memory, which changes the DRAM
# bytes of kernels that rely on L2 reuse (GEMM naive/tiled/regblock read
# 3.6-5.5 % less here than under ncu's base clocks). Kernels
# are joined by the order in which they ran. Tables
# go to stdout; CSVs and logs stay in OUT_DIR/files.
# Usage: dram-vs-ncu.sh BUILD_DIR OUT_DIR [LADDER...]
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
shift 2
cli=$build/app/warpscope-cli
workload=$build/app/warpscope-workload
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
policies=${POLICIES:-all}
ladders=("$@")
[ ${#ladders[@]} -gt 0 ] || ladders=(gemv_bf16 gemm_bf16 rmsnorm softmax silu_mul rope
  attention_decode attention_prefill copy)
declare -A shapes=([gemv_bf16]="batch = 1, n = 8192, k = 8192" [gemm_bf16]="m = 4096, n = 4096, k = 4096"
  [attention_decode]="batch = 8, context = 4096" [copy]="bytes = 268435456")
metrics=dram__bytes_read.sum,dram__bytes_write.sum
ws_header
sets=${SETS:-dram}
files=$out/files; mkdir -p "$files"
db=$files/dram.wsdb; rm -f "$db"*
run_id=0
for ladder in "${ladders[@]}"; do
  cfg=$tmp/$ladder.toml
  ws_kernel_config "$cfg" "$ladder-dram" "$ladder" all "${shapes[$ladder]:-}" "${ITERATIONS:-2}" 1
  for cc in all none; do
    "$ncu" --cache-control "$cc" --clock-control "${NCU_CLOCK:-none}" --metrics "$metrics" --csv --print-units base \
      "$workload" run "$cfg" > "$files/$ladder.ncu-$cc.csv" 2> "$files/$ladder.ncu-$cc.log" || fail=1
  done
  for set in $sets; do
    for policy in $policies; do
      tag=$ladder.$policy.${set%%,*}
      "$cli" record --db "$db" --metrics "$set" --cache-control "$policy" --progress none \
        --label "$ladder cache $policy" --workload "$cfg" > "$files/$tag.log" 2>&1
      run_id=$((run_id + 1))
      "$cli" export $run_id --db "$db" --format csv --table kernels -o "$files/$tag.kernels.csv" || fail=1
      "$cli" export $run_id --db "$db" --format csv --table metrics -o "$files/$tag.metrics.csv" || fail=1
      grep -h "replay passes\|L2\|DRAM bytes come" "$files/$tag.log" | sort -u | head -3
      python3 "$here/dram_vs_ncu.py" "$ladder" "$policy, metrics $set" "$files/$tag.kernels.csv" \
        "$files/$tag.metrics.csv" "$files/$ladder.ncu-all.csv" "$files/$ladder.ncu-none.csv" || fail=1
    done
  done
done
ws_finish
