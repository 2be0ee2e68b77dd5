#!/usr/bin/env bash
# Runs on the GPU machine: record --gpu-metrics checked against what the
# kernels did and against Nsight Compute. A device-to-device copy loop: the
# sampled DRAM read + write GB/s over the copy kernel against its bytes over
# its time; the GEMM and GEMV ladders and decode attention: each sampled
# metric's mean over a kernel's launches against ncu's value for the same
# kernel (--clock-control none, the realtime metrics' ncu names). Then the
# cost of sampling: the built-in decoder recorded with and without
# --gpu-metrics, alternating, ROUNDS rounds (default 3), fresh processes.
# LADDERS picks ladders (default: all four). Tables to stdout; stores, JSON
# and ncu CSVs in OUT_DIR/files.
# Usage: gpu-metrics-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
workload=$build/app/warpscope-workload
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
ws_header
files=$out/files; mkdir -p "$files"
db=$files/gpu-metrics.wsdb; rm -f "$db"*
ncu_metrics=sm__cycles_active.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,lts__t_bytes.sum.per_second
declare -A shapes=([copy]="bytes = 268435456" [gemm_bf16]="m = 4096, n = 4096, k = 4096"
  [gemv_bf16]="batch = 1, n = 8192, k = 8192" [attention_decode]="batch = 8, context = 4096")
declare -A iterations=([copy]=4000 [gemm_bf16]=40 [gemv_bf16]=4000 [attention_decode]=4000)
run_id=0
for ladder in ${LADDERS:-copy gemm_bf16 gemv_bf16 attention_decode}; do
  cfg=$tmp/$ladder.toml
  ws_kernel_config "$cfg" "$ladder-gpu-metrics" "$ladder" all "${shapes[$ladder]}" "${ITERATIONS:-${iterations[$ladder]}}" 3
  "$cli" record --db "$db" --gpu-metrics --progress none --label "$ladder gpu-metrics" \
    --workload "$cfg" > "$files/$ladder.log" 2>&1 || fail=1
  run_id=$((run_id + 1))
  grep -h "GPU metrics\|left out\|overflow\|sampling" "$files/$ladder.log" | sort -u | head -12
  "$cli" gpu-metrics $run_id --db "$db" --by kernel --top 40 --json > "$files/$ladder.by-kernel.json" || fail=1
  "$cli" gpu-metrics $run_id --db "$db" --by kernel --top 6 || fail=1
  "$cli" export $run_id --db "$db" --format csv --table kernels -o "$files/$ladder.kernels.csv" || fail=1
  # ncu on a shorter run of the same kernels (its replay makes each launch slow).
  small=$tmp/$ladder-ncu.toml
  ws_kernel_config "$small" "$ladder-ncu" "$ladder" all "${shapes[$ladder]}" 5 3
  "$ncu" --clock-control none --metrics "$ncu_metrics" --csv --print-units base \
    "$workload" run "$small" > "$files/$ladder.ncu.csv" 2> "$files/$ladder.ncu.log" || fail=1
  python3 "$here/gpu_metrics_report.py" "$ladder" "$files/$ladder.kernels.csv" \
    "$files/$ladder.by-kernel.json" "$files/$ladder.ncu.csv" || fail=1
done
# COST picks the programs whose recording is timed with and without sampling:
# the built-in 8B decoder (its median decode step, `steps`) and a Hugging Face
# generate() (its own median call time, torch_decode_timed.py's REGION_S).
if [ "${ROUNDS:-3}" -gt 0 ]; then
  : > "$files/cost-runs.txt"
  for program in ${COST:-decoder generate}; do
    echo "== cost of sampling: $program, ${ROUNDS:-3} rounds alternating, fresh processes"
    for round in $(seq 1 "${ROUNDS:-3}"); do
      for mode in plain sampled; do
        extra=(); [ $mode = sampled ] && extra=(--gpu-metrics)
        log=$files/cost-$program-$mode-$round.log
        if [ "$program" = decoder ]; then
          "$cli" record --db "$files/cost.wsdb" --progress none "${extra[@]}" --label "cost $program $mode $round" \
            --workload "$src/resources/workloads/llama-3.1-8b-bf16.toml" > "$log" 2>&1 || fail=1
          id=$("$cli" ls --db "$files/cost.wsdb" --json | python3 -c 'import json,sys; print(max(r["id"] for r in json.load(sys.stdin)))')
          "$cli" steps "$id" --db "$files/cost.wsdb" --json > "$files/cost-$program-$mode-$round.steps.json" 2>/dev/null
        else
          "$cli" record --db "$files/cost.wsdb" --progress none "${extra[@]}" --label "cost $program $mode $round" \
            -- python3 "$here/torch_decode_timed.py" --calls 5 > "$log" 2>&1 || fail=1
        fi
        echo "$program $mode $round" >> "$files/cost-runs.txt"
      done
    done
  done
  python3 "$here/gpu_metrics_report.py" --cost "$files" || fail=1
fi
ws_finish
