#!/usr/bin/env bash
# Runs on the GPU machine: the rungs that miss their bandwidth target, recorded
# with `record --metrics roofline` (one kernel replay per launch): what each
# kernel reads from DRAM, for how long, and at what occupancy, as the
# workbench's roofline and occupancy views show it.
# Usage: missed-targets-counters.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=$(cd "$1" && pwd); out=$2; mkdir -p "$out"
cli=$build/app/warpscope-cli; here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
db=$out/missed.wsdb; rm -f "$db"*; cfg=$(mktemp -d)
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
  printf 'name = "%s"\nkind = "kernel"\n[kernel]\nname = "%s"\nrung = "%s"\nshape = { %s }\niterations = 3\nwarmup = 0\n' \
    "$kernel-$run" "$kernel" "$rung" "$shape" > "$cfg/$run.toml"
  echo "== $kernel $rung $shape"
  $cli record --db "$db" --label "$kernel $rung, $shape" --metrics roofline --progress none --workload "$cfg/$run.toml" > "$out/$run.log" 2>&1 || tail -3 "$out/$run.log"
  $cli export $run --db "$db" --format csv --table kernels -o "$cfg/k$run.csv"
  $cli export $run --db "$db" --format csv --table metrics -o "$cfg/m$run.csv"
  python3 "$here/counters_report.py" "$cfg/k$run.csv" "$cfg/m$run.csv"
done
