#!/usr/bin/env bash
# Runs on the GPU machine: records the fixture program, a PyTorch model, a
# Triton kernel, a killed program, and measures timing agreement and capture
# overhead side by side. Usage: capture-check.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=$(cd "$1" && pwd); out=$2; mkdir -p "$out"
cli=$build/app/warpscope-cli
fx=$build/tests/gpu/capture_fixture
db=$out/capture.wsdb
rm -f "$db"*
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
check="python3 $(dirname "$0")/check_capture.py $cli $db"
fail=0
echo "== $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"

echo "== fixture"
$cli record --db "$db" --label fixture --progress none -- "$fx" fixture > "$out/fixture.json" || fail=1
$check fixture fixture "$out/fixture.json" || fail=1

echo "== kernel durations against CUDA events"
ev=$($cli record --db "$db" --label timing --progress none -- "$fx" timing 50 | awk '/EVENT_MS/{print $2}')
$check timing timing "$ev" || fail=1

echo "== overhead: traced / untraced wall time, alternating in one run"
for mode in "launches 20000" "launches 200000" "large 200" "launches-no-driver-api 20000"; do
  set -- $mode
  prog=${1%-no-driver-api}
  extra=(); [ "$1" != "$prog" ] && extra=(--no-driver-api)
  plain=(); traced=()
  for i in 1 2 3 4 5; do
    plain+=($("$fx" $prog $2 | awk '/WALL_MS/{print $2}'))
    traced+=($($cli record --db "$db" --label "overhead-$1-$2" --progress none "${extra[@]}" -- "$fx" $prog $2 | awk '/WALL_MS/{print $2}'))
  done
  python3 - "$1 $2" "${plain[*]}" "${traced[*]}" <<'PY'
import statistics, sys
name, plain, traced = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
p, t = statistics.median(plain), statistics.median(traced)
limit = 1.02 if name.startswith("large") else 1.15
print(f"{'PASS' if t / p <= limit else 'FAIL'} overhead {name}: untraced {plain} ms, traced {traced} ms, median ratio {t/p:.3f} (limit {limit})")
PY
done
$cli ls --db "$db" --json | python3 -c "
import json,sys
runs=[r for r in json.load(sys.stdin) if r['label']=='overhead-launches-200000']
print(('PASS' if all(r['dropped_records']==0 for r in runs) else 'FAIL')+' dropped records at 200k launches: '+str([r['dropped_records'] for r in runs]))"
$cli show $($cli ls --db "$db" --json | python3 -c "import json,sys;print([r for r in json.load(sys.stdin) if r['label']=='overhead-launches-200000'][-1]['id'])") --db "$db" | head -20

echo "== SIGKILL mid-run"
$cli record --db "$db" --label killed --progress none -- "$fx" forever > /dev/null &
launcher=$!
sleep 3
victim=$(pgrep -P "$launcher" | head -1)  # the program, not the launcher
kill_ns=$(date +%s%N); kill -9 "$victim"
wait $launcher
$check killed killed "$kill_ns" || fail=1

echo "== SIGKILL of the launcher itself: the run is marked killed on the next open"
$cli record --db "$db" --label launcher-killed --progress none -- "$fx" forever > /dev/null &
launcher=$!
sleep 2
kill -9 "$launcher"; wait $launcher 2>/dev/null; pkill -9 -f "capture_fixture forever"; sleep 0.5
$cli ls --db "$db" | grep launcher-killed

echo "== PyTorch generate() with no code change"
$cli record --db "$db" --label torch-generate --progress none -- python3 "$(dirname "$0")/torch_llama_generate.py" --tokens 32 > "$out/torch.log" 2>&1
tail -3 "$out/torch.log"
$check external torch-generate 100 "ws.request,ws.token" 32 || fail=1

echo "== Triton kernel"
$cli record --db "$db" --label triton --progress none -- python3 "$(dirname "$0")/triton_vector_add.py" > "$out/triton.log" 2>&1
tail -2 "$out/triton.log"
$check external triton 20 "triton_add" || fail=1

$cli ls --db "$db"
exit $fail
