#!/usr/bin/env bash
# Capture overhead on a PyTorch decode (issue #19): the measured region of
# torch_decode_timed.py untraced, under warpscope-cli record with each setting,
# and under torch.profiler (CUDA only, CPU+CUDA), alternating for ROUNDS rounds;
# medians and ratios to untraced. Settings say where the cost is.
# Usage: torch-overhead-check.sh BUILD_DIR OUT_DIR [ROUNDS] [BATCH TOKENS]
# (SETTINGS: which Warpscope settings, by name; PROFILER=0 leaves torch.profiler
# out, PROFILER=cuda keeps its CUDA-only run; CALLS: timed calls per program;
# PROGRAM=launches: the launch-bound loop; CORES: run every program on these cores, e.g. 2-5, as taskset -c does;
# PROFILER_AFTER=1: also untraced calls after a torch.profiler warm-up;
# FLOORS="warpscope kineto kernels none": also run under bare CUPTI with those kinds,
# buffers discarded (experiments/cupti_floor_inject.cpp; a build configured
# with -DWARPSCOPE_BUILD_EXPERIMENTS=ON): the floor under any CUPTI tracer)
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR [ROUNDS] [BATCH TOKENS]" 2 "$@"
rounds=${3:-3}; batch=${4:-1}; tokens=${5:-32}
cli=$build/app/warpscope-cli; db=$out/torch-overhead.wsdb
# PROGRAM=launches: torch_launch_loop.py (20,000 small ops) instead of generate().
script=torch_decode_timed.py; [ "${PROGRAM:-generate}" = launches ] && script=torch_launch_loop.py
prog=(python3 "$here/$script" --batch "$batch" --tokens "$tokens" --calls "${CALLS:-3}")
pin=(); [ -n "${CORES:-}" ] && pin=(taskset -c "$CORES")
# name → "ENV=VALUE ... | record options"
declare -A settings=(
  [default]="|"
  [allapis]="|--all-apis"
  [nodriver]="|--no-driver-api"
  [nosamples]="|--sample-ms 0"
  [nosync]="WARPSCOPE_KINDS_OFF=synchronization|"
  [nomarker]="WARPSCOPE_KINDS_OFF=marker|"
  [nographnodes]="WARPSCOPE_GRAPH_NODES=0|"
  [noflush]="WARPSCOPE_FLUSH_MS=0|"
  [cuptitids]="WARPSCOPE_SYSTEM_TID=0|"
  [buf4m]="WARPSCOPE_BUFFER_KB=4096|"
  [lean]="WARPSCOPE_KINDS_OFF=synchronization|--no-driver-api --sample-ms 0"
  [window]="WS_PROFILER_WINDOW=1|--capture-range cudaProfilerApi"
  # Untraced calls in a recording that traces nothing (no window opened), and
  # after one window around the warm-up: what the collector costs outside windows.
  [idle]="|--capture-range cudaProfilerApi"
  [afterwindow]="WS_TRACE_ONLY_WARMUP=1|--capture-range cudaProfilerApi"
)
# SETTINGS="default nodriver" measures only those (default: all of them).
read -r -a order <<<"${SETTINGS:-default allapis nodriver nosamples nosync nomarker nographnodes noflush lean}"
region() { awk '/REGION_S/{print $2}'; }
ws_header
[ -z "${FLOORS:-}" ] || [ -f "$build/exp/libcupti_floor_inject.so" ] ||
  ws_die "FLOORS needs $build/exp/libcupti_floor_inject.so (configure with -DWARPSCOPE_BUILD_EXPERIMENTS=ON)"
echo "batch $batch, $tokens tokens, $rounds rounds"
for _ in $(seq "$rounds"); do
  echo "untraced $("${pin[@]}" "${prog[@]}" | region)"
  if [ "${PROFILER:-1}" != 0 ]; then
    echo "profiler_cuda $("${pin[@]}" "${prog[@]}" --profiler cuda 2>/dev/null | region)"
  fi
  # PROFILER_AFTER=1: untraced calls after torch.profiler traced the warm-up.
  if [ "${PROFILER_AFTER:-0}" = 1 ]; then
    echo "profiler_cuda_after $(WS_TRACE_ONLY_WARMUP=1 "${pin[@]}" "${prog[@]}" --profiler cuda 2>/dev/null | region)"
  fi
  if [ "${PROFILER:-1}" = 1 ]; then
    echo "profiler_cpu_cuda $("${pin[@]}" "${prog[@]}" --profiler cpu+cuda 2>/dev/null | region)"
  fi
  for kinds in ${FLOORS:-}; do
    echo "floor_$kinds $(env CUDA_INJECTION64_PATH="$build/exp/libcupti_floor_inject.so" FLOOR_KINDS="$kinds" "${pin[@]}" "${prog[@]}" | region)"
  done
  for name in "${order[@]}"; do
    IFS='|' read -r envs opts <<<"${settings[$name]}"
    # shellcheck disable=SC2086  # words of a setting
    s=$(env $envs "$cli" record --db "$db" --label "$name" --progress none $opts -- "${pin[@]}" "${prog[@]}" | region)
    echo "$name $s"
  done
done | tee "$out/torch-overhead.txt"
# What each setting kept: the first round's runs, in order.
for i in $(seq "${#order[@]}"); do
  echo "${order[$((i - 1))]}: $("$cli" show "$i" --db "$db" | grep -E '^api calls')"
done
python3 - "$out/torch-overhead.txt" <<'PY' || fail=1
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 2 and not line.startswith("batch"):
        try: rows[parts[0]].append(float(parts[1]))
        except ValueError: print("no figure:", line.strip())
base = statistics.median(rows.pop("untraced"))
print(f"untraced median {base*1000:.1f} ms")
for k, v in rows.items():
    m = statistics.median(v)
    print(f"{k:18s} {m*1000:8.1f} ms  ratio {m/base:.3f}  rounds {[round(x*1000,1) for x in v]}")
PY
ws_finish
