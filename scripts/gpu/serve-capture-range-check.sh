#!/usr/bin/env bash
# Runs on the GPU machine: the built-in 1B server recorded with bench serve
# --server --capture-range cudaProfilerApi --profile, so only the measured
# requests are traced (not the model load, the CUDA graph captures or the
# warm-up request), beside the same load recorded whole. Judges: one capture
# window, every stored kernel inside it, every request inside it, and fewer
# kernels than the whole recording by at least the warm-up's.
# Usage: serve-capture-range-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
runner=$build/app/warpscope-workload
preset=$src/resources/workloads/serve-llama-1b.toml
db=$out/serve-range.wsdb
rm -f "$db"*
port=8493
load=(--endpoint "http://127.0.0.1:$port" --model serve-llama-1b --input-len 256 --output-len 64
  --ignore-eos --seed 1 --num-prompts 16 --max-concurrency 4 --db "$db")
ws_header
timeout 300 "$cli" bench serve "${load[@]}" --label whole --server -- \
  "$runner" serve "$preset" --port "$port" > "$tmp/whole.txt" 2>&1 || fail=1
timeout 300 "$cli" bench serve "${load[@]}" --label "load only" --profile \
  --capture-range cudaProfilerApi --server -- "$runner" serve "$preset" --port "$port" \
  > "$tmp/range.txt" 2>&1 || fail=1
for run in 1 2; do
  "$cli" export "$run" --db "$db" --format json -o "$tmp/run$run.json" || fail=1
  "$cli" show "$run" --db "$db" | grep -E '^(label|kernels|requests) |bench.profile|capture.range'
done
python3 - "$tmp/run1.json" "$tmp/run2.json" <<'PY' || fail=1
import json, sys
whole, ranged = (json.load(open(p)) for p in sys.argv[1:3])
windows = [r for r in ranged["ranges"] if r["name"] == "capture range" and r["domain"] == "Warpscope"]
ks, reqs = ranged["kernels"], ranged["requests"]
print(f"whole run: {len(whole['kernels'])} kernels; load only: {len(ks)} kernels, "
      f"{len(windows)} capture window(s), {len(reqs)} requests")
ok = len(windows) == 1 and len(reqs) == 16 and 0 < len(ks) < len(whole["kernels"])
if windows:
    w = windows[0]
    outside = [k for k in ks if not (w["start_ns"] <= k["start_ns"] <= w["end_ns"])]
    early = [q for q in reqs if q["start_ns"] < w["start_ns"]]
    print(f"window {(w['end_ns'] - w['start_ns']) / 1e6:.1f} ms; kernels outside it {len(outside)}; "
          f"requests sent before it opened {len(early)}")
    ok = ok and not outside and not early
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
ws_finish
