# shellcheck shell=bash disable=SC2034  # the variables set here are the sourcing script's
# Shared by every shell script in scripts/gpu/, which starts with
#   source "$(dirname "$0")/lib.sh"
#
# One error policy for all of them: `set -uo pipefail`, no `-e`. A check or
# measurement whose failure must not stop the rest records it with
# `|| fail=1`; the script ends with `ws_finish` (exit $fail). Only a missing
# argument or build folder stops a script at once (ws_die, exit status 2).
#
# Also set here: here (this folder), src (the repository), tmp (a fresh
# temporary folder, removed on exit however the script ends), and
# LD_LIBRARY_PATH with the CUDA libraries first.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/warpscope-gpu.XXXXXX") || { echo "mktemp failed" >&2; exit 2; }
trap 'rm -rf "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# The GPU machine has no libcpp-httplib (warpscope-workload links it for
# `serve`): a copy carried in .gpu/lib with the build is found first.
[ -d "$src/.gpu/lib" ] && export LD_LIBRARY_PATH=$src/.gpu/lib:$LD_LIBRARY_PATH

ws_die() {  # MESSAGE: print it and stop with status 2
  echo "$(basename "$0"): $*" >&2
  exit 2
}

# ws_args "USAGE" N "$@": at least N arguments, the first the build folder
# (build, made absolute); when USAGE starts with "BUILD_DIR OUT_DIR", the
# second is the output folder (out, created). The caller shifts what it used.
ws_args() {
  local usage=$1 n=$2
  shift 2
  [ $# -ge "$n" ] || ws_die "usage: $(basename "$0") $usage"
  build=$(cd "$1" 2>/dev/null && pwd) || ws_die "$1: no such build folder"
  case $usage in
    "BUILD_DIR OUT_DIR"*) out=$2; mkdir -p "$out" || ws_die "cannot create $out" ;;
  esac
}

# ws_header: the first line of every script's output, the time (UTC) and the
# GPU: "== 2026-12-03T09:49:55Z NVIDIA H200, 580.159.04". A script may set
# gpu_fields first to ask nvidia-smi for more (kernel-bench.sh adds clocks).
gpu_fields=name,driver_version
ws_header() {
  local gpu
  gpu=$(nvidia-smi --query-gpu="$gpu_fields" --format=csv,noheader 2>/dev/null) ||
    gpu="(no GPU: nvidia-smi failed)"
  echo "== $(date -u +%FT%TZ) $gpu"
}

# ws_kernel_config FILE NAME KERNEL RUNG "SHAPE" ITERATIONS WARMUP: a kernel
# workload config for warpscope-workload run / warpscope-cli record --workload.
ws_kernel_config() {
  printf 'name = "%s"\nkind = "kernel"\n[kernel]\nname = "%s"\nrung = "%s"\nshape = { %s }\niterations = %s\nwarmup = %s\n' \
    "$2" "$3" "$4" "$5" "$6" "$7" > "$1"
}

# ws_preset_variant PRESET NAME key=value…: a copy of a bundled workload preset
# (resources/workloads/PRESET) with fields replaced; prints its path.
ws_preset_variant() {
  local from=$1 name=$2; shift 2
  local f=$tmp/$name.toml
  local what="$*"; what=${what//\"/}
  sed -e "s/^name = .*/name = \"$name\"/" -e "s/^description = .*/description = \"$name: $what (from $from)\"/" "$src/resources/workloads/$from" > "$f"
  for kv in "$@"; do
    local k=${kv%%=*} v=${kv#*=}
    grep -q "^$k = " "$f" || { echo "ws_preset_variant: $from has no field $k" >&2; return 1; }
    sed -i -e "s/^$k = .*/$k = $v/" "$f"
  done
  echo "$f"
}

ws_finish() {  # the last line of every script
  exit "$fail"
}

# ws_start_server LOG PRESET PORT: starts `warpscope-workload serve PRESET`
# untraced in the background (its pid in $server, its output in LOG) and
# waits up to 120 s until it says it is ready, or has exited.
ws_start_server() {
  local log=$1 preset=$2 port=$3
  "$build/app/warpscope-workload" serve "$preset" --port "$port" > "$log" 2>&1 &
  server=$!
  for _ in $(seq 1 240); do
    grep -q "^warpscope-workload: ready" "$log" && return 0
    kill -0 "$server" 2>/dev/null || return 1
    sleep 0.5
  done
  return 1
}
