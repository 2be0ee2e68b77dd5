#!/usr/bin/env bash
# Runs every line of vllm_bench_lines.txt as written, `vllm bench serve`
# standing for `warpscope-cli bench serve`, each against a CPU server that
# serves the model the line names on the port it names, from a fresh HOME
# and working folder. Checks what each line says must happen.
#   vllm_bench_lines.sh WARPSCOPE_CLI WARPSCOPE_WORKLOAD LINES_FILE
set -uo pipefail
cli=$(realpath "$1") workload=$(realpath "$2") lines=$(realpath "$3")
work=$(mktemp -d); [ -n "${KEEP:-}" ] && echo "keeping $work"
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# The data files the docs' placeholders name: a ShareGPT file (two
# conversations of two turns) and a JSON Lines file of prompts.
sharegpt=$work/data/ShareGPT_V3_unfiltered_cleaned_split.json
mkdir -p "$work/data"
cat > "$sharegpt" <<'JSON'
[{"id": "a", "conversations": [{"from": "human", "value": "Say hello to the benchmark, please."},
  {"from": "gpt", "value": "Hello, benchmark! It is good to meet you."}]},
 {"id": "b", "conversations": [{"from": "human", "value": "Count from one to five."},
  {"from": "gpt", "value": "One, two, three, four, five."}]}]
JSON
printf '{"prompt": "What is a GPU?", "output_len": 8}\n{"prompt": "Name a prime.", "output_len": 4}\n' \
  > "$work/data/prompts.jsonl"

export PATH_CLI=$cli
vllm() {  # `vllm bench serve ARGS` as `warpscope-cli bench serve ARGS`
  [ "${1:-}" = bench ] || { echo "vllm: only 'bench' is stood in for" >&2; return 2; }
  shift
  "$PATH_CLI" bench "$@"
}
export -f vllm

failures=0 n=0
while IFS= read -r raw; do
  [[ -z "$raw" || "$raw" == \#* ]] && continue
  n=$((n + 1))
  read -r expect rest <<<"$raw"
  flag=
  if [ "$expect" = refused ]; then read -r flag rest <<<"$rest"; fi
  line=${rest//<your data path>/$work/data}
  line=${line//<path-to-your-data-jsonl>/$work/data/prompts.jsonl}
  line=${line//\/path\/to\/ShareGPT4V\/sharegpt4v_instruct_gpt4-vision_cap100k.json/$sharegpt}
  case=$work/case$n
  mkdir -p "$case/home" "$case/benchmarks"
  cp "$sharegpt" "$case/"; cp "$sharegpt" "$case/sharegpt.json"; cp "$sharegpt" "$case/benchmarks/"
  model=$(grep -oE -- '--model[ =][^ ]+' <<<"$line" | head -1 | sed -E 's/--model[ =]//')
  # $MODEL, or a --model inside a variable: the scripts' model.
  [[ -z "$model" || "$model" == \$* ]] && model=meta-llama/Llama-3.1-8B-Instruct
  port=$(grep -oE -- '--port[ =][0-9]+' <<<"$line" | head -1 | sed -E 's/--port[ =]//')
  port=${port:-8000}
  # The server, awaited on its own "ready" line (read from its output as it
  # comes, never a sleep).
  exec {out}< <(exec "$workload" serve --backend cpu --port "$port" --served-model-name "${model:-warpscope-cpu}" 2>&1)
  ready=
  while IFS= read -r -t 30 -u "$out" l; do [[ "$l" == *"warpscope-workload: ready"* ]] && { ready=1; break; }; done
  if [ -z "$ready" ]; then echo "line $n: the server on port $port did not say ready" >&2; failures=$((failures + 1)); continue; fi
  (
    cd "$case" || exit 99
    export HOME=$case/home MODEL=meta-llama/Llama-3.1-8B-Instruct adjusted_input_len=64 \
      OUTPUT_LEN=16 MAX_LATENCY_ALLOWED_MS=10000 prefix_len=0 request_rate=200 \
      best_request_rate=200 bm_log=$case/bm.log RESULTS_FOLDER=$case/results \
      new_test_name=serving_llama8B_tp1_random_128_128 qps=inf max_concurrency=16 \
      num_prompts_arg="--num-prompts 200" tp=1 compilation_config_mode=3 optimization_level=2 \
      client_args_effective="--backend vllm --ignore-eos --temperature 0 --model meta-llama/Llama-3.1-8B-Instruct --dataset-name random --random-input-len 128 --random-output-len 128" \
      client_remote_args=""
    bash -c "$line" > stdout.txt 2> stderr.txt
    echo $? > rc.txt
  )
  rc=$(cat "$case/rc.txt")
  pkill -INT -f -- "--port $port --served-model-name" 2>/dev/null
  while IFS= read -r -t 30 -u "$out" l; do :; done  # its output, to its end
  exec {out}<&-
  all="$(cat "$case/stderr.txt" "$case/bm.log" "$case/stdout.txt" 2>/dev/null)"
  if [ "$expect" = ok ]; then
    runs=$("$cli" ls --db "$case/home/.local/share/warpscope/runs.wsdb" 2>/dev/null | grep -c ' ok ')
    if [ "$rc" != 0 ] || [ "$runs" -lt 1 ]; then
      echo "line $n: expected to run (exit $rc, $runs ok runs): $rest" >&2
      echo "$all" | tail -3 | sed 's/^/    /' >&2
      "$cli" show 1 --db "$case/home/.local/share/warpscope/runs.wsdb" 2>&1 | grep -m3 -iE 'error|HTTP' | sed 's/^/    /' >&2
      failures=$((failures + 1))
    else
      echo "line $n: ran: $(grep -m1 'stored run' <<<"$all")"
    fi
  else
    lines_err=$(grep -c . "$case/stderr.txt")
    if [ "$rc" != 2 ] || [ "$lines_err" != 1 ] || ! grep -q -- "$flag" "$case/stderr.txt"; then
      echo "line $n: expected one line refusing $flag (exit $rc, $lines_err lines): $rest" >&2
      sed 's/^/    /' "$case/stderr.txt" | head -5 >&2
      failures=$((failures + 1))
    else
      echo "line $n: refused: $(cat "$case/stderr.txt")"
    fi
  fi
done < "$lines"
echo "vllm bench lines: $n run, $failures failed"
[ "$n" -ge 20 ] && [ "$failures" = 0 ]
