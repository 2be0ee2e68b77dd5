#!/usr/bin/env bash
# Issue #19's overhead target judged inside one process: the program's calls
# alternate between traced and untraced (timed_region.py --alternate), so each
# pair's ratio carries none of the drift between processes that spreads the
# separate-process rounds of torch-overhead-check.sh by 10-60 % on the device
# VMs. Warpscope traces its calls through --capture-range cudaProfilerApi
# (torch.cuda.profiler.start/stop around each traced call), torch.profiler
# CUDA-only through a profile() entered around each; the same program and
# calls for both. The Warpscope run must hold exactly the traced calls'
# kernels: for the launch loop, OPS x (CALLS + 1 warm-up) `add_` kernels.
#
#   torch-overhead-alternate.sh BUILD_DIR OUT_DIR [ROUNDS]
# PROGRAM=generate|launches (default both), CALLS (pairs per process,
# default 8), CORES (taskset list, e.g. 2-5). Each round runs both tools once.
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR [ROUNDS]" 2 "$@"
rounds=${3:-2}
cli=$build/app/warpscope-cli
calls=${CALLS:-8}
pin=(); [ -n "${CORES:-}" ] && pin=(taskset -c "$CORES")
ws_header
for program in ${PROGRAM:-launches generate}; do
  script=torch_decode_timed.py; [ "$program" = launches ] && script=torch_launch_loop.py
  prog=(python3 "$here/$script" --calls "$calls")
  db=$out/alternate-$program.wsdb
  for round in $(seq "$rounds"); do
    "$cli" record --db "$db" --label "$program round $round" --progress none \
      --capture-range cudaProfilerApi -- "${pin[@]}" "${prog[@]}" --alternate warpscope \
      > "$tmp/ws.txt" || fail=1
    "${pin[@]}" "${prog[@]}" --alternate cuda > "$tmp/torch.txt" 2>/dev/null || fail=1
    for tool in ws torch; do
      echo "$program $tool $(awk '/PAIR_RATIO|TRACED_S|UNTRACED_S/{printf "%s %s  ", $1, $2}' "$tmp/$tool.txt")"
      grep PAIRS "$tmp/$tool.txt" | sed "s/^/  $program $tool /"
    done
    "$cli" show "$round" --db "$db" | grep -E '^(kernels|api calls|capture cost)' | sed "s/^/  $program stored: /"
  done
done | tee "$out/alternate.txt"
python3 - "$out/alternate.txt" "$calls" <<'PY' || fail=1
import collections, statistics, sys
ratios = collections.defaultdict(list)
ok = True
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) > 3 and w[2] == "PAIR_RATIO":
        ratios[(w[0], w[1])].append(float(w[3]))
    # The launch loop's run holds exactly the traced calls' kernels: 20,000
    # per call, the warm-up's traced call included.
    if w[:3] == ["launches", "stored:", "kernels"]:
        want = 20000 * (int(sys.argv[2]) + 1)
        print(f"launch loop kernels stored {w[3]} of {want} traced:",
              "PASS" if int(w[3]) == want else "FAIL")
        ok = ok and int(w[3]) == want
names = {"ws": "Warpscope default, capture range", "torch": "torch.profiler CUDA-only"}
for (program, tool), r in sorted(ratios.items()):
    print(f"{program:9s} {names[tool]:34s} traced/untraced {statistics.median(r):.3f} "
          f"(rounds {[round(x, 3) for x in r]})")
sys.exit(0 if ok else 1)
PY
ws_finish
