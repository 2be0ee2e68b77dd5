#!/usr/bin/env bash
# Runs on the GPU machine: record --pc-sampling checked against Nsight
# Compute. The decode-attention and GEMM ladders recorded with PC sampling;
# `kernel RUN NAME` for each ladder's longest kernel; the share of its
# samples by stall reason against ncu's smsp__pcsamp_warps_issue_stalled_*
# counts for the same kernel (--clock-control none). Then --gpu-metrics beside
# it (refused), a PyTorch generate() with it, and its cost on the built-in
# 8B decoder (ROUNDS rounds, default 2, alternating, fresh processes).
# LADDERS picks ladders (default both); NO_TORCH=1 leaves generate() out.
# Usage: pc-sampling-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
workload=$build/app/warpscope-workload
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
ws_header
files=$out/files; mkdir -p "$files"
db=$files/pc-sampling.wsdb; rm -f "$db"*
declare -A shapes=([attention_decode]="batch = 8, context = 4096" [gemm_bf16]="m = 4096, n = 4096, k = 4096")
declare -A kernels=([attention_decode]=attention [gemm_bf16]=gemm)
run_id=0
for ladder in ${LADDERS:-attention_decode gemm_bf16}; do
  cfg=$tmp/$ladder.toml
  ws_kernel_config "$cfg" "$ladder-pc" "$ladder" all "${shapes[$ladder]}" "${ITERATIONS:-200}" 3
  "$cli" record --db "$db" --pc-sampling --progress none --label "$ladder pc-sampling" \
    --workload "$cfg" > "$files/$ladder.log" 2>&1 || fail=1
  run_id=$((run_id + 1))
  grep -h "PC sampling" "$files/$ladder.log" | head -5
  "$cli" summary $run_id --db "$db" --top 5 | sed -n '1,14p'
  top=$("$cli" summary $run_id --db "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kernels"][0]["demangled"])')
  "$cli" kernel $run_id "$top" --db "$db" --top 8 || fail=1
  small=$tmp/$ladder-ncu.toml
  ws_kernel_config "$small" "$ladder-ncu" "$ladder" all "${shapes[$ladder]}" 3 1
  "$ncu" --clock-control none --metrics group:smsp__pcsamp_warp_stall_reasons --csv --print-units base \
    "$workload" run "$small" > "$files/$ladder.ncu.csv" 2> "$files/$ladder.ncu.log" || fail=1
  # Every kernel of the ladder holding at least 1 % of its kernel time.
  "$cli" summary $run_id --db "$db" --json | python3 -c 'import json,sys
for k in json.load(sys.stdin)["kernels"]:
    if k["time_percent"] >= 1: print(k["demangled"])' > "$files/$ladder.kernels.txt"
  i=0
  while read -r kernel; do
    i=$((i + 1))
    "$cli" kernel $run_id "$kernel" --db "$db" --json > "$files/$ladder.kernel$i.json" || fail=1
    python3 "$here/pc_sampling_report.py" "$files/$ladder.kernel$i.json" "$files/$ladder.ncu.csv" || fail=1
  done < "$files/$ladder.kernels.txt"
done
echo "== beside --gpu-metrics: refused before anything runs"
"$cli" record --db "$db" --pc-sampling --gpu-metrics --progress none -- /bin/true 2>&1 | head -2
if [ -z "${NO_TORCH:-}" ]; then
  echo "== PyTorch generate()"
  "$cli" record --db "$db" --pc-sampling --progress none --label "torch generate pc-sampling" \
    -- python3 "$here/torch_llama_generate.py" --tokens 32 --batch 4 > "$files/torch.log" 2>&1 || fail=1
  grep -h "PC sampling" "$files/torch.log" | head -5
  run_id=$((run_id + 1))
  top=$("$cli" summary $run_id --db "$db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["kernels"][0]["demangled"])')
  "$cli" kernel $run_id "$top" --db "$db" --top 5 || fail=1
fi
# The small run kept in tests/data (pc-sampling-attention.bundle): the
# split-KV MMA decode attention, 20 launches.
cfg=$tmp/attn-small.toml
ws_kernel_config "$cfg" "attention-pc" attention_decode splitkv_mma "batch = 8, context = 4096" 20 3
"$cli" record --db "$files/small.wsdb" --pc-sampling --progress none --label "decode attention, PC sampling" \
  --workload "$cfg" > /dev/null 2>&1 || fail=1
"$cli" bundle 1 --db "$files/small.wsdb" -o "$out/pc-sampling-attention.bundle" || fail=1
"$cli" kernel 1 decodeSplitMma --db "$files/small.wsdb" --top 3 || fail=1
if [ "${ROUNDS:-2}" -gt 0 ]; then
  echo "== cost: built-in 8B decoder, ${ROUNDS:-2} rounds alternating"
  for round in $(seq 1 "${ROUNDS:-2}"); do
    for mode in plain sampled; do
      extra=(); [ $mode = sampled ] && extra=(--pc-sampling)
      "$cli" record --db "$files/cost.wsdb" --progress none "${extra[@]}" --label "cost $mode $round" \
        --workload "$src/resources/workloads/llama-3.1-8b-bf16.toml" > "$files/cost-$mode-$round.log" 2>&1 || fail=1
      read -r id wall < <("$cli" ls --db "$files/cost.wsdb" --json | python3 -c 'import json,sys
r = max(json.load(sys.stdin), key=lambda r: r["id"]); print(r["id"], r["duration_ns"])')
      p50=$("$cli" steps "$id" --db "$files/cost.wsdb" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("step_p50_ns", 0))')
      # The run's own statement of what sampling cost, beside its wall time.
      [ $mode = sampled ] && "$cli" show "$id" --db "$files/cost.wsdb" | grep "PC samples" >&2
      echo "$mode $round wall $wall ns decode step p50 $p50 ns"
    done
  done | tee "$files/cost.txt"
  python3 - "$files/cost.txt" <<'PY' || fail=1
import statistics, sys
v = {"plain": [], "sampled": []}
wall = {}
for line in open(sys.argv[1]):
    w = line.split()
    if float(w[-2]) > 0:
        v[w[0]].append(float(w[-2]))
    wall.setdefault(w[0], []).append(float(w[3]))
if v["plain"] and v["sampled"]:
    print(f"PC-sampled / plain decode step: {statistics.median(v['sampled']) / statistics.median(v['plain']):.3f}x")
    print(f"PC-sampled - plain run wall time: {(statistics.median(wall['sampled']) - statistics.median(wall['plain'])) / 1e6:.1f} ms (medians)")
PY
fi
ws_finish
