#!/usr/bin/env bash
# Runs on the GPU machine: the rungs that miss their bandwidth target, recorded
# with `record --metrics roofline` (one kernel replay per launch): what each
# kernel reads from DRAM, for how long, and at what occupancy, as the
# workbench's roofline and occupancy views show it.
# Usage: missed-targets-counters.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
db=$out/missed.wsdb; rm -f "$db"*
ws_header
run=0
# The copy ceiling and a decode attention case that meets its target are
# counted the same way, so each rung is compared with them under counters.
for spec in "copy|kernel|bytes = 268435456" \
            "attention_decode|splitkv_mma|batch = 16, context = 8192" \
            "attention_decode|splitkv_mma|batch = 8, context = 4096" \
            "attention_decode|splitkv_mma|batch = 1, context = 32768" \
            "softmax|fused|rows = 512, cols = 131072" \
            "softmax|fused|rows = 1024, cols = 65536" \
            "gemv_bf16|splitk|batch = 1, n = 4096, k = 14336" \
            "gemv_bf16|splitk|batch = 1, n = 8192, k = 8192"; do
  IFS='|' read -r kernel rung shape <<< "$spec"; run=$((run + 1))
  ws_kernel_config "$tmp/$run.toml" "$kernel-$run" "$kernel" "$rung" "$shape" 3 0
  echo "== $kernel $rung $shape"
  "$cli" record --db "$db" --label "$kernel $rung, $shape" --metrics roofline --progress none --workload "$tmp/$run.toml" > "$out/$run.log" 2>&1 || { fail=1; tail -3 "$out/$run.log"; }
  "$cli" export $run --db "$db" --format csv --table kernels -o "$tmp/k$run.csv" || fail=1
  "$cli" export $run --db "$db" --format csv --table metrics -o "$tmp/m$run.csv" || fail=1
  python3 "$here/counters_report.py" "$tmp/k$run.csv" "$tmp/m$run.csv" || fail=1
done
ws_finish
