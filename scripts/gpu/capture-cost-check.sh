#!/usr/bin/env bash
# Runs on the GPU machine: the capture-cost estimate stored with every run.
#  1. The first recording calibrates (warpscope-workload launch-cost, untraced
#     and recorded, alternating) and caches; the second reads the cache.
#  2. The estimate against a measurement: 200,000 empty launches untraced and
#     recorded, alternating (3 rounds), per-launch difference beside the
#     calibrated per-launch cost.
#  3. What a real run states: the Llama-3.1-8B decoder with graphs.
# Usage: capture-cost-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
runner=$build/app/warpscope-workload
db=$out/cost.wsdb
rm -f "$db"*
export XDG_CACHE_HOME=$tmp/cache
ws_header

cost_of() { "$cli" show "$1" --db "$db" | grep -aE "^capture cost|capture\.launch_cost_ns|capture\.cost_share"; }
last_run() { "$cli" ls --db "$db" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[-1]['id'])"; }

echo "== first recording calibrates, the second reads the cache"
for i in 1 2; do
  start=$(date +%s.%N)
  "$cli" record --db "$db" --label "loop-$i" --progress none -- "$runner" launch-cost 200000 2>&1 |
    grep -aE "calibrating|capture cost|not estimated" || fail=1
  echo "recording $i took $(python3 -c "import sys; print(round($(date +%s.%N) - $start, 2))") s"
done
cost_of "$(last_run)"
cat "$XDG_CACHE_HOME/warpscope/launch-cost.json"

echo "== measured per-launch cost at 200,000 launches, 3 alternating rounds"
plain=(); traced=()
for _ in 1 2 3; do
  plain+=("$("$runner" launch-cost 200000 | awk '/LAUNCH_LOOP_NS/{print $2}')")
  traced+=("$("$cli" record --db "$db" --label measure --progress none -- "$runner" launch-cost 200000 2>/dev/null | awk '/LAUNCH_LOOP_NS/{print $2}')")
done
python3 - "${plain[*]}" "${traced[*]}" "$XDG_CACHE_HOME/warpscope/launch-cost.json" <<'PY' || fail=1
import json, statistics, sys
plain, traced = [float(x) for x in sys.argv[1].split()], [float(x) for x in sys.argv[2].split()]
cal = next(iter(json.load(open(sys.argv[3])).values()))
measured = (statistics.median(traced) - statistics.median(plain)) / 200000
print(f"untraced {[round(p / 2e5, 1) for p in plain]} ns/launch, recorded {[round(t / 2e5, 1) for t in traced]} ns/launch")
print(f"measured cost {measured:.0f} ns per launch at 200,000 launches; calibrated (20,000) {cal['per_launch_ns']:.0f} ns; ratio {cal['per_launch_ns'] / measured:.2f}")
PY

echo "== the Llama-3.1-8B decoder with graphs states its cost"
cfg=$(ws_preset_variant llama-3.1-8b-bf16.toml cost-8b cuda_graphs=true output_tokens=128 requests=4)
"$cli" record --db "$db" --label cost-8b --progress none --workload "$cfg" 2>&1 | grep -aE "capture cost|TPOT" || fail=1
cost_of "$(last_run)"
ws_finish
