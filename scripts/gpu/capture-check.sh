#!/usr/bin/env bash
# Runs on the GPU machine: records the fixture program, a PyTorch model, a
# Triton kernel, a killed program, and measures timing agreement and capture
# overhead side by side. Usage: capture-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
fx=$build/tests/gpu/capture_fixture
db=$out/capture.wsdb
rm -f "$db"*
check=(python3 "$here/check_capture.py" "$cli" "$db")
ws_header

echo "== fixture"
"$cli" record --db "$db" --label fixture --progress none -- "$fx" fixture > "$out/fixture.json" || fail=1
"${check[@]}" fixture fixture "$out/fixture.json" || fail=1

echo "== kernel durations against CUDA events"
ev=$("$cli" record --db "$db" --label timing --progress none -- "$fx" timing 50 | awk '/EVENT_MS/{print $2}')
"${check[@]}" timing timing "$ev" || fail=1

echo "== overhead: traced / untraced wall time, alternating in one run"
for mode in "launches 20000" "launches 200000" "large 200" "launches-no-driver-api 20000"; do
  read -r name count <<< "$mode"
  prog=${name%-no-driver-api}
  extra=(); [ "$name" != "$prog" ] && extra=(--no-driver-api)
  plain=(); traced=()
  for _ in 1 2 3 4 5; do
    plain+=("$("$fx" "$prog" "$count" | awk '/WALL_MS/{print $2}')")
    traced+=("$("$cli" record --db "$db" --label "overhead-$name-$count" --progress none "${extra[@]}" -- "$fx" "$prog" "$count" | awk '/WALL_MS/{print $2}')")
  done
  python3 - "$name $count" "${plain[*]}" "${traced[*]}" <<'PY' || fail=1
import statistics, sys
name, plain, traced = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
p, t = statistics.median(plain), statistics.median(traced)
limit = 1.02 if name.startswith("large") else 1.15
print(f"{'PASS' if t / p <= limit else 'FAIL'} overhead {name}: untraced {plain} ms, traced {traced} ms, median ratio {t/p:.3f} (limit {limit})")
PY
done
"$cli" ls --db "$db" --json | python3 -c "
import json,sys
runs=[r for r in json.load(sys.stdin) if r['label']=='overhead-launches-200000']
ok=all(r['dropped_records']==0 for r in runs)
print(('PASS' if ok else 'FAIL')+' dropped records at 200k launches: '+str([r['dropped_records'] for r in runs]))
sys.exit(0 if ok else 1)" || fail=1
last=$("$cli" ls --db "$db" --json | python3 -c "import json,sys;print([r for r in json.load(sys.stdin) if r['label']=='overhead-launches-200000'][-1]['id'])")
"$cli" show "$last" --db "$db" | head -20

echo "== SIGKILL mid-run"
"$cli" record --db "$db" --label killed --progress none -- "$fx" forever > /dev/null &
launcher=$!
sleep 3
victim=$(pgrep -P "$launcher" | head -1)  # the program, not the launcher
kill_ns=$(date +%s%N); kill -9 "$victim"
wait "$launcher"
"${check[@]}" killed killed "$kill_ns" || fail=1

echo "== SIGKILL of the launcher itself: the run is marked killed on the next open"
"$cli" record --db "$db" --label launcher-killed --progress none -- "$fx" forever > /dev/null &
launcher=$!
sleep 2
victim=$(pgrep -P "$launcher" | head -1)  # left running once its launcher is gone
kill -9 "$launcher"; wait "$launcher" 2>/dev/null
[ -n "$victim" ] && kill -9 "$victim" 2>/dev/null; sleep 0.5
"$cli" ls --db "$db" | grep launcher-killed || fail=1

echo "== PyTorch generate() with no code change"
"$cli" record --db "$db" --label torch-generate --progress none -- python3 "$here/torch_llama_generate.py" --tokens 32 > "$out/torch.log" 2>&1
tail -3 "$out/torch.log"
"${check[@]}" external torch-generate 100 "ws.request,ws.token" 32 || fail=1

echo "== Triton kernel"
"$cli" record --db "$db" --label triton --progress none -- python3 "$here/triton_vector_add.py" > "$out/triton.log" 2>&1
tail -2 "$out/triton.log"
"${check[@]}" external triton 20 "triton_add" || fail=1

"$cli" ls --db "$db"
ws_finish
