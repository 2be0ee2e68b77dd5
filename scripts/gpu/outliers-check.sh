#!/usr/bin/env bash
# Runs on the GPU machine: where a served run's slowest ITLs come from. The
# built-in 1B server (serve-llama-1b.toml) recorded with bench serve --server
# under Poisson arrivals, so new prompts are prefilled between other requests'
# decode steps; then `outliers` splits each ITL into prefill interference,
# kernels and launch gap inside decode-only steps, and host gap.
# Usage: outliers-check.sh BUILD_DIR OUT_DIR [RATE] [PROMPTS]
# IN and OUT (default 1024 and 128) are the prompt and output lengths.
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR [RATE] [PROMPTS]" 2 "$@"
rate=${3:-16}; prompts=${4:-160}; in=${IN:-1024}; outlen=${OUT:-128}
cli=$build/app/warpscope-cli
runner=$build/app/warpscope-workload
preset=$src/resources/workloads/serve-llama-1b.toml
db=$out/outliers.wsdb
rm -f "$db"*
port=8481
ws_header
echo "== serve-llama-1b, random $in -> $outlen tokens, $prompts prompts at $rate req/s (Poisson), recorded with --server"
timeout 400 "$cli" bench serve --endpoint "http://127.0.0.1:$port" --model serve-llama-1b \
  --input-len "$in" --output-len "$outlen" --ignore-eos --seed 1 --num-prompts "$prompts" \
  --request-rate "$rate" --max-concurrency 64 --label "outliers-rate$rate" --db "$db" \
  --server-timeout 300 --server -- "$runner" serve "$preset" --port "$port" > "$tmp/bench.txt" 2>&1 || fail=1
grep -aE "^(requests|throughput|ttft|tpot|itl)" "$tmp/bench.txt"
run=$("$cli" ls --db "$db" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[-1]['id'])") ||
  { tail -20 "$tmp/bench.txt"; ws_die "no run stored"; }
"$cli" show "$run" --db "$db" | head -20
"$cli" outliers "$run" --db "$db" --top 15 | tee "$out/outliers.txt" || fail=1
"$cli" outliers "$run" --db "$db" --top 50 --json > "$out/outliers.json" || fail=1
python3 - "$out/outliers.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
ok = j["engine_steps"] > 0 and j["steps_described"] and j["itl_count"] > 0
total = j["all"]["total_ms"]
parts = sum(j["all"][k] for k in ("prefill_ms", "kernel_ms", "launch_gap_ms", "host_gap_ms"))
ok &= abs(total - parts) < 1e-6 * max(total, 1)
print(("ok    " if ok else "FAIL  ") + f"{j['itl_count']} ITLs split over {j['engine_steps']} engine steps; the four parts add up to the ITLs' sum ({parts:.3f} of {total:.3f} ms)")
o = j["outliers_total"]
print(f"      p99 outliers ({j['outlier_count']}): prefill {o['prefill_share']:.0%}, kernels {o['kernel_share']:.0%}, launch gap {o['launch_gap_share']:.0%}, host gap {o['host_gap_share']:.0%}")
a = j["all"]
print(f"      every ITL: prefill {a['prefill_share']:.0%}, kernels {a['kernel_share']:.0%}, launch gap {a['launch_gap_share']:.0%}, host gap {a['host_gap_share']:.0%}")
sys.exit(0 if ok else 1)
PY
ws_finish
