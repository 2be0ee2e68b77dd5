#!/usr/bin/env bash
# Runs on the GPU machine: kernels replayed from CUDA graphs traced back to the
# NVTX ranges open when their graph was captured (issue: capture, CUDA graphs).
#  1. torch.cuda.graph of 3 kernels in 3 named ranges, replayed 50 times:
#     150 kernels, each credited to its capture-time range.
#  2. The built-in decoder (Llama-3.2-1B shape), eager and with decode graphs:
#     per layer/operation range the same kernel count, kernel time within 2 %.
#  3. torch.compile(mode="reduce-overhead") of a Llama-shaped model: the share
#     of replayed kernel time traced to its capture, and inside a range then.
# Usage: graph-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
db=$out/graphs.wsdb
rm -f "$db"*
report=(python3 "$here/graph_report.py")
ws_header

# record LABEL ARGS…: records into $db, prints the new run's id.
record() {
  local label=$1; shift
  "$cli" record --db "$db" --label "$label" --progress none "$@" > "$tmp/$label.log" 2>&1 ||
    { fail=1; tail -5 "$tmp/$label.log" >&2; }
  "$cli" ls --db "$db" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[-1]['id'])"
}
summary() { "$cli" summary "$1" --db "$db" --json --top 5 > "$out/summary-$2.json" || fail=1; }

echo "== torch.cuda.graph: 3 kernels in 3 ranges, 50 replays"
run=$(record torch-three -- python3 "$here/torch_graph_ranges.py" three --replays 50)
summary "$run" three
"${report[@]}" three "$out/summary-three.json" || fail=1

echo "== built-in decoder, eager against decode graphs"
l1=llama-3.2-1b-bf16.toml
eager=$(record decoder-eager --workload "$(ws_preset_variant $l1 graphs-eager cuda_graphs=false output_tokens=64)")
graphs=$(record decoder-graphs --workload "$(ws_preset_variant $l1 graphs-on cuda_graphs=true output_tokens=64)")
summary "$eager" eager
summary "$graphs" graphs
"${report[@]}" decoder "$out/summary-eager.json" "$out/summary-graphs.json" || fail=1
grep -hE "TPOT" "$tmp/decoder-eager.log" "$tmp/decoder-graphs.log"

# SKIP_TPOT=1 leaves out the TPOT comparison (the longest part).
[ -z "${SKIP_TPOT:-}" ] && echo "== TPOT untraced and recorded, alternating (3 rounds): graph replay and eager"
runner=$build/app/warpscope-workload
l8=llama-3.1-8b-bf16.toml
# tpot_line RUNNER-OUTPUT: the TPOT figure in ms.
tpot_line() { awk '/^TPOT/{print $2; exit}' "$1"; }
for spec in "8b-graphs $l8 cuda_graphs=true" "1b-eager $l1 cuda_graphs=false"; do
  [ -n "${SKIP_TPOT:-}" ] && break
  read -r name preset fields <<< "$spec"
  # shellcheck disable=SC2086  # fields: key=value words
  cfg=$(ws_preset_variant "$preset" "tpot-$name" $fields output_tokens=128 requests=4)
  plain=(); node=(); graph=()
  for _ in 1 2 3; do
    "$runner" run "$cfg" > "$tmp/tpot.log" 2>&1 || fail=1
    plain+=("$(tpot_line "$tmp/tpot.log")")
    "$cli" record --db "$db" --label "tpot-$name-node" --progress none --workload "$cfg" > "$tmp/tpot.log" 2>&1 || fail=1
    node+=("$(tpot_line "$tmp/tpot.log")")
    [ "$name" = 1b-eager ] && continue  # no graphs to trace per launch
    "$cli" record --db "$db" --label "tpot-$name-graph" --progress none --graph-trace graph --workload "$cfg" > "$tmp/tpot.log" 2>&1 || fail=1
    graph+=("$(tpot_line "$tmp/tpot.log")")
  done
  python3 - "$name" "${plain[*]}" "${node[*]}" "${graph[*]}" <<'PY' || fail=1
import statistics, sys
name, plain, node, graph = sys.argv[1], *[a.split() for a in sys.argv[2:]]
try:
    p = statistics.median(map(float, plain))
    line = f"TPOT {name}: untraced {plain} ms; recorded per node {node} ms, median ratio {statistics.median(map(float, node)) / p:.3f}"
    if graph:
        line += f"; per graph launch {graph} ms, median ratio {statistics.median(map(float, graph)) / p:.3f}"
    print(line)
except ValueError:
    sys.exit(f"FAIL TPOT {name}: a run printed no TPOT (untraced {plain}, node {node}, graph {graph})")
PY
done
if [ -z "${SKIP_TPOT:-}" ]; then
  last=$("$cli" ls --db "$db" --json | python3 -c "import json,sys; print([r['id'] for r in json.load(sys.stdin) if r['label']=='tpot-8b-graphs-graph'][-1])")
  echo "-- graph-level run $last: top kernels"
  "$cli" summary "$last" --db "$db" --top 4 | sed -n 1,12p
fi

echo "== torch.compile(mode=reduce-overhead), Llama-shaped, 20 replays"
run=$(record torch-compile -- python3 "$here/torch_graph_ranges.py" compile --replays 20)
summary "$run" compile
"${report[@]}" compile "$out/summary-compile.json" || fail=1
tail -3 "$tmp/torch-compile.log"
echo "== torch.profiler started inside a recorded program"
run=$(record profiler-inside -- python3 "$here/torch_profiler_inside.py")
grep -E "TORCH_PROFILER_KERNELS|PROGRAM_OK|warpscope|CUPTI|subscriber" "$tmp/profiler-inside.log" | head -8
"$cli" show "$run" --db "$db" | grep -iE "status|kernels|dropped|note|subscriber" | head -8
ws_finish
