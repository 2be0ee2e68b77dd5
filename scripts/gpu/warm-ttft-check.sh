#!/usr/bin/env bash
# Runs on the GPU machine: the built-in decoder's TTFT cold (no warm-up, the
# first request pays first-call initialisation and lazy module loading) and
# warm (one untimed warm-up request, the default), 8 requests each, for the
# optimized and cuBLAS variants of Llama-3.2-1B. Prints per-request TTFT.
# Usage: warm-ttft-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
db=$out/warm-ttft.wsdb; rm -f "$db"*
ws_header
for variant in optimized cublas; do
  for warmup in 0 1; do
    cfg=$tmp/llama-$variant-warmup$warmup.toml
    sed -e "s/^variant = .*/variant = \"$variant\"/" \
        -e "s/^warmup_requests = .*/warmup_requests = $warmup/" \
        -e "s/^name = .*/name = \"llama-3.2-1b-$variant-warmup$warmup\"/" \
        "$src/resources/workloads/llama-3.2-1b-bf16.toml" > "$cfg"
    "$cli" record --db "$db" --label "$variant, warm-up $warmup" --workload "$cfg" \
      --progress none > "$out/$variant-warmup$warmup.log" 2>&1 || fail=1
  done
done
"$cli" ls --db "$db"
for run in 1 2 3 4; do
  "$cli" export "$run" --db "$db" --format json -o "$tmp/run$run.json" || fail=1
done
python3 - "$tmp" <<'PY' || fail=1
import json, sys, statistics
for run in range(1, 5):
    r = json.load(open(f"{sys.argv[1]}/run{run}.json"))
    first = {}
    for t in r["tokens"]:
        if t["token_index"] == 0:
            first[t["request_id"]] = t["time_ns"]
    ttft = [(first[q["request_id"]] - q["start_ns"]) / 1e6 for q in r["requests"]]
    print(f"run {run} {r['label']:24s} requests {len(ttft)}  TTFT ms per request: "
          + " ".join(f"{x:.3f}" for x in ttft)
          + f"  | first {ttft[0]:.3f}, median of the rest {statistics.median(ttft[1:]):.3f}")
PY
"$cli" compare 2 4 --db "$db" --top 6 || fail=1
ws_finish
