#!/usr/bin/env bash
# Runs on the GPU machine: does the calibrated capture cost (empty launches)
# predict what a PyTorch program pays per kernel? Three measurements, each
# untraced and recorded in separate processes, alternating, ROUNDS rounds:
#  1. warpscope-workload launch-cost 20000 Q for Q = 0 (the calibration's
#     loop) and QUERIES (cudaGetDevice calls before each launch, as a
#     framework's device guards make), per launch;
#  2. torch_launch_loop.py (20,000 x.add_(1.0) per call), per op;
#  3. the API calls PyTorch makes per kernel, by name (record --all-apis).
# Usage: capture-cost-queries.sh BUILD_DIR OUT_DIR [ROUNDS]  (QUERIES, default
# 8; CORES: a taskset list for every program; WAYS: see ways() below)
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR [ROUNDS]" 2 "$@"
rounds=${3:-3}
cli=$build/app/warpscope-cli
runner=$build/app/warpscope-workload
db=$out/queries.wsdb
rm -f "$db"*
export XDG_CACHE_HOME=$tmp/cache
pin=(); [ -n "${CORES:-}" ] && pin=(taskset -c "$CORES")
torch_loop=(python3 "$here/torch_launch_loop.py" --calls 5)
ws_header
loop_ns() { awk '/LAUNCH_LOOP_NS/{print $2}'; }
region() { awk '/REGION_S/{print $2 * 1e9}'; }
recorded() { "$cli" record --db "$db" --label "$1" --progress none "${@:2}" 2>/dev/null; }
floor=$build/exp/libcupti_floor_inject.so
# WAYS="floor_KINDS …": besides untraced and recorded, under bare CUPTI with
# those kinds, buffers discarded (experiments/cupti_floor_inject.cpp).
ways() {  # NAME PARSER COMMAND…: one line per way of running COMMAND
  local name=$1 parse=$2; shift 2
  echo "$name untraced $("${pin[@]}" "$@" | $parse)"
  echo "$name recorded $(recorded "$name" -- "${pin[@]}" "$@" | $parse)"
  for way in ${WAYS:-}; do
    case $way in
      floor_*) echo "$name $way $(CUDA_INJECTION64_PATH=$floor FLOOR_KINDS=${way#floor_} "${pin[@]}" "$@" | $parse)" ;;
    esac
  done
}
for _ in $(seq "$rounds"); do
  for q in 0 "${QUERIES:-8}"; do ways "launches_q$q" loop_ns "$runner" launch-cost 20000 "$q"; done
  ways torch_add region "${torch_loop[@]}"
done | tee "$out/queries.txt"
python3 - "$out/queries.txt" <<'PY' || fail=1
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    try:
        name, how, ns = line.split()
        rows[(name, how)].append(float(ns) / 20000)
    except ValueError:
        print("no figure:", line.strip())
for name in dict.fromkeys(n for n, _ in rows):
    u = statistics.median(rows[(name, "untraced")])
    print(f"{name:14s} per launch untraced {u:7.0f} ns")
    for (n, how), v in rows.items():
        if n == name and how != "untraced":
            m = statistics.median(v)
            print(f"{'':14s} {how:16s} {m:7.0f} ns, cost {m - u:6.0f} ns ({m / u:.3f}x)")
PY
echo "== API calls per kernel in the PyTorch launch loop, every call traced (--all-apis)"
recorded torch-all-apis --all-apis -- "${torch_loop[@]}" --calls 1 > /dev/null || fail=1
run=$("$cli" ls --db "$db" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[-1]['id'])")
"$cli" export "$run" --db "$db" --format csv --table api_calls -o "$tmp/api.csv" || fail=1
"$cli" export "$run" --db "$db" --format csv --table kernels -o "$tmp/kernels.csv" || fail=1
python3 - "$tmp/api.csv" "$tmp/kernels.csv" <<'PY' || fail=1
import collections, csv, sys
names = collections.Counter(r["name"] for r in csv.DictReader(open(sys.argv[1])))
kernels = sum(1 for _ in csv.DictReader(open(sys.argv[2])))
print(f"{kernels} kernels, {sum(names.values())} API calls")
for name, n in names.most_common(12):
    print(f"  {name:40s} {n:8d}  {n / kernels:5.2f} per kernel")
PY
ws_finish
