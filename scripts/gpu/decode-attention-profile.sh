#!/usr/bin/env bash
# Runs on the GPU machine: records the splitkv_mma decode attention rung through
# warpscope-cli (CUPTI) and prints its kernel summary, to separate the split
# kernel's own time from the launch gaps of a call.
# Usage: decode-attention-profile.sh BUILD_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR" 1 "$@"
ws_header
id=0
for spec in "b8-4k:batch = 8, context = 4096" "b1-4k:batch = 1, context = 4096"; do
  n=${spec%%:*}; shape=${spec#*:}; id=$((id + 1))
  ws_kernel_config "$tmp/$n.toml" "$n" attention_decode splitkv_mma "$shape" 50 5
  "$build/app/warpscope-cli" record --db "$tmp/p.wsdb" --label "$n" --progress none -- \
    "$build/app/warpscope-workload" run "$tmp/$n.toml" | tail -2 || fail=1
  "$build/app/warpscope-cli" summary "$id" --db "$tmp/p.wsdb" --top 4 | sed -n 1,8p || fail=1
done
ws_finish
