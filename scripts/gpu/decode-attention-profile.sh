#!/usr/bin/env bash
# Runs on the GPU machine: records the splitkv_mma decode attention rung through
# warpscope-cli (CUPTI) and prints its kernel summary, to separate the split
# kernel's own time from the combine kernel and the launch gaps.
# Usage: decode-attention-profile.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd); tmp=$(mktemp -d)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
id=0
for spec in "b8-4k:batch = 8, context = 4096" "b1-4k:batch = 1, context = 4096"; do
  n=${spec%%:*}; shape=${spec#*:}; id=$((id + 1))
  printf 'name = "%s"\nkind = "kernel"\n[kernel]\nname = "attention_decode"\nrung = "splitkv_mma"\nshape = { %s }\niterations = 50\nwarmup = 5\n' "$n" "$shape" > "$tmp/$n.toml"
  "$build/app/warpscope-cli" record --db "$tmp/p.wsdb" --label "$n" --progress none -- \
    "$build/app/warpscope-workload" run "$tmp/$n.toml" | tail -2
  "$build/app/warpscope-cli" summary "$id" --db "$tmp/p.wsdb" --top 4 | sed -n 1,8p
done
