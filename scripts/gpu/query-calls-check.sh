#!/usr/bin/env bash
# What tracing state-reading API calls costs (issue #19): capture_fixture
# queries N (each ~1 µs launch after PyTorch's per-kernel state reads: 8
# cudaGetDevice, one cudaGetLastError) untraced, recorded by default (those
# calls left out) and recorded with --all-apis, alternating for ROUNDS rounds on
# the same cores; medians per launch and each run's stored API calls.
# Usage: query-calls-check.sh BUILD_DIR OUT_DIR [ROUNDS] [N]
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR [ROUNDS] [N]" 2 "$@"
rounds=${3:-5}; n=${4:-100000}
cli=$build/app/warpscope-cli; db=$out/query-calls.wsdb
fixture=$build/tests/gpu/capture_fixture
[ -x "$fixture" ] || ws_die "$fixture: not built"
pin=(taskset -c "${CORES:-2-5}")  # the program only: the recorder runs beside it
wall() { awk '/WALL_MS/{print $2}'; }
ws_header
for _ in $(seq "$rounds"); do
  echo "untraced $("${pin[@]}" "$fixture" queries "$n" | wall)"
  echo "default $("$cli" record --db "$db" --label default --progress none -- "${pin[@]}" "$fixture" queries "$n" | wall)"
  echo "all_apis $("$cli" record --db "$db" --label all-apis --progress none --all-apis -- "${pin[@]}" "$fixture" queries "$n" | wall)"
done | tee "$out/query-calls.txt"
echo "default: $("$cli" show 1 --db "$db" | grep -E '^api calls')"
echo "all-apis: $("$cli" show 2 --db "$db" | grep -E '^api calls')"
# The first round's runs: cudaGetDevice left out by default, all 8 per launch kept with --all-apis.
for run in 1 2; do
  "$cli" export "$run" --db "$db" --format csv --table api_calls -o "$tmp/api$run.csv" || fail=1
done
got=$(grep -c ',cudaGetDevice_v' "$tmp/api1.csv"); all=$(grep -c ',cudaGetDevice_v' "$tmp/api2.csv")
if [ "$got" -eq 0 ] && [ "$all" -ge $((8 * n)) ]; then
  echo "PASS cudaGetDevice records: $got by default, $all with --all-apis"
else
  echo "FAIL cudaGetDevice records: $got by default (want 0), $all with --all-apis (want >= $((8 * n)))"; fail=1
fi
python3 - "$out/query-calls.txt" "$n" <<'PY' || fail=1
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, v = line.split()
    rows[k].append(float(v))
n = int(sys.argv[2])
med = {k: statistics.median(v) for k, v in rows.items()}
for k, v in rows.items():
    print(f"{k:9s} {med[k] / n * 1000:6.2f} µs per launch  × untraced {med[k] / med['untraced']:.3f}  rounds (ms) {v}")
added = {k: (med[k] - med["untraced"]) / n * 1000 for k in ("default", "all_apis")}
print(f"tracing adds {added['default']:.2f} µs per launch by default, {added['all_apis']:.2f} µs with --all-apis")
PY
ws_finish
