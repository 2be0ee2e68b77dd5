#!/usr/bin/env bash
# Runs on the GPU machine: the advisor's what-if checked against real runs
# (issue 47). Records pairs of decoder variants in one session, predicts each
# pair's second run from its first with `warpscope-cli whatif`, and prints
# predicted against measured TPOT (scripts/gpu/whatif_report.py).
# Usage: whatif-check.sh BUILD_DIR OUT_DIR   (OUT_DIR/whatif.wsdb keeps the runs)
# WHATIF_PAIRS=served,int8 records only the runs of those pairs (a short call;
# the others then print "not recorded").
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
ws_header
db=$out/whatif.wsdb; rm -f "$db"*
pairs=${WHATIF_PAIRS:-served,attention,attention1,batch,graphs,int8,cublas}
wanted() { [[ ,$pairs, == *,$1,* ]]; }

# record NAME PRESET CAPTURE "FIELDS": one recorded run; prints nothing, logs to OUT.
# Sources are recorded with every kernel (the replay needs them); targets with
# --graph-trace graph where they replay graphs, the cheapest capture that
# still stamps tokens, so their TPOT is what the variant does, not the tracer.
record() {
  local name=$1 preset=$2 capture=$3; shift 3
  local cfg
  # shellcheck disable=SC2086  # fields: key=value words
  cfg=$(ws_preset_variant "$preset" "$name" "$@" output_tokens=64 requests=8) || { fail=1; return; }
  # shellcheck disable=SC2086  # capture: zero or more flags
  "$cli" record --db "$db" --progress none --label "$name" $capture --workload "$cfg" \
    > "$tmp/$name.log" 2>&1 || { fail=1; tail -5 "$tmp/$name.log"; }
  { echo "-- $name"; cat "$tmp/$name.log"; } >> "$out/whatif-record.log"
}

# Served first, so a call cut short keeps them: the built-in server under
# bench serve --server. Then `steps` sets each step against its floor.
runner=$build/app/warpscope-workload
served() {  # NAME CAPTURE "LOAD" FIELDS...: one served run of 64 requests
  local name=$1 capture=$2 load=$3; shift 3
  local cfg
  # shellcheck disable=SC2086  # fields: key=value words
  cfg=$(ws_preset_variant serve-llama-1b.toml "$name" "$@") || { fail=1; return; }
  # shellcheck disable=SC2086  # capture and load: zero or more flags
  timeout 300 "$cli" bench serve --endpoint http://127.0.0.1:8471 $load --output-len 64 \
    --ignore-eos --seed 1 --num-prompts 64 --label "$name" --db "$db" --model "$name" \
    --server-timeout 240 $capture --server -- "$runner" serve "$cfg" --port 8471 \
    > "$tmp/$name.log" 2>&1 || { fail=1; tail -5 "$tmp/$name.log"; }
  { echo "-- $name"; cat "$tmp/$name.log"; } >> "$out/whatif-record.log"
}
steps_of() {  # LABEL: `steps` of a stored served run, kept in OUT
  local id
  id=$("$cli" ls --db "$db" --json | python3 -c "import json,sys; print(next(r['id'] for r in json.load(sys.stdin) if r['label'] == '$1'))") &&
    "$cli" steps "$id" --db "$db" > "$out/steps-$1.txt" || fail=1
}
# swap SRC DST LOAD SRC_FIELD DST_FIELD: a served pair under one load: the
# source traced node by node, the target traced whole (its TPOT) and node by
# node (its kernels' times).
swap() {
  served "$1-nodes" "--graph-trace node" "$3" "$4"
  served "$2" "--graph-trace graph" "$3" "$5"
  served "$2-nodes" "--graph-trace node" "$3" "$5"
}
# At 32 req/s (open loop: arrivals stay put), cuBLAS against our GEMV.
if wanted served; then
  swap served-cublas served-optimized "--input-len 256 --request-rate 32" \
    variant='"cublas"' variant='"optimized"'
  steps_of served-optimized-nodes; steps_of served-cublas-nodes
fi
# Decode attention's two split plans (serve.decode_splits), one the other's
# swapped rung: at concurrency 16 over 2048-token prompts, where attention
# weighs more, and one request at a time over 1024-token prompts, where the
# 128-key plan runs half as many blocks as the wave plan.
if wanted attention; then
  swap attn-wave attn-fixed "--input-len 2048 --max-concurrency 16 --request-rate inf" \
    decode_splits='"wave"' decode_splits='"fixed"'
  steps_of attn-wave-nodes; steps_of attn-fixed-nodes
fi
if wanted attention1; then
  swap attn1-fixed attn1-wave "--input-len 1024 --max-concurrency 1 --request-rate inf" \
    decode_splits='"fixed"' decode_splits='"wave"'
fi
l1=llama-3.2-1b-bf16.toml; l8=llama-3.1-8b-bf16.toml
for model in 1b 8b; do
  preset=$l1; [ $model = 8b ] && preset=$l8
  if wanted graphs; then
    record $model-eager "$preset" "" variant='"optimized"' cuda_graphs=false
    record $model-graphs "$preset" "--graph-trace graph" variant='"optimized"' cuda_graphs=true
  fi
  if wanted int8 || wanted cublas || wanted batch; then
    record $model-graphs-nodes "$preset" "" variant='"optimized"' cuda_graphs=true
  fi
  if wanted int8; then
    record $model-int8-graphs "$preset" "--graph-trace graph" variant='"optimized"' cuda_graphs=true precision='"int8-weight-only"'
    record $model-int8-graphs-nodes "$preset" "" variant='"optimized"' cuda_graphs=true precision='"int8-weight-only"'
  fi
  if wanted cublas; then
    record $model-cublas-graphs-nodes "$preset" "" variant='"cublas"' cuda_graphs=true
  fi
  if wanted batch; then  # 8 requests at batch 8: one round of 64 steps
    record $model-batch8 "$preset" "--graph-trace graph" variant='"optimized"' cuda_graphs=true batch=8
    record $model-batch8-nodes "$preset" "" variant='"optimized"' cuda_graphs=true batch=8
  fi
done
"$cli" ls --db "$db"
python3 "$here/whatif_report.py" "$cli" "$db" | tee "$out/whatif-table.txt" || fail=1
ws_finish
