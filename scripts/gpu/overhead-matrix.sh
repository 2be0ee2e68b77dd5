#!/usr/bin/env bash
# Capture overhead of a launch-bound loop under collector settings, measured
# side by side (untraced and each setting alternating, 3 rounds).
# Usage: overhead-matrix.sh BUILD_DIR OUT_DIR [SETTING...]  (default: all)
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR [SETTING...]" 2 "$@"; shift 2
cli=$build/app/warpscope-cli; fx=$build/tests/gpu/capture_fixture; db=$out/overhead.wsdb
declare -A settings=(
  [default]=""
  [buffer8m]="WARPSCOPE_BUFFER_KB=8192"
  [noflush]="WARPSCOPE_FLUSH_MS=0"
  [zeroed]="WARPSCOPE_ZEROED_BUFFERS=1"
  [devbuf32]="WARPSCOPE_DEVICE_BUFFER_MB=32"
  [zeroed_devbuf32]="WARPSCOPE_ZEROED_BUFFERS=1 WARPSCOPE_DEVICE_BUFFER_MB=32"
  [nodriver]="WARPSCOPE_DRIVER_API=0"
  [pinned]="WARPSCOPE_HOST_PINNED=1"
  [nosamples]=""
  [defaulttid]="WARPSCOPE_SYSTEM_TID=0"
)
declare -A options=([nosamples]="--sample-ms 0")  # record options of a setting
chosen=("$@"); [ ${#chosen[@]} -gt 0 ] || chosen=("${!settings[@]}")
for name in "${chosen[@]}"; do
  [ -n "${settings[$name]+set}" ] || ws_die "unknown setting $name (one of: ${!settings[*]})"
done
ws_header
for _ in 1 2 3; do
  echo "untraced $("$fx" launches 200000 | awk '/WALL_MS/{print $2}')"
  for name in "${chosen[@]}"; do
    # shellcheck disable=SC2086  # a setting's words: VAR=value pairs, record options
    ms=$(env ${settings[$name]} "$cli" record --db "$db" --label "$name" --progress none ${options[$name]:-} -- "$fx" launches 200000 | awk '/WALL_MS/{print $2}')
    echo "$name $ms"
  done
done | tee "$out/overhead-matrix.txt"
python3 - "$out/overhead-matrix.txt" <<'PY' || fail=1
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, v = line.split(); rows[k].append(float(v))
base = statistics.median(rows.pop("untraced"))
print(f"untraced median {base:.1f} ms ({base/200:.2f} us/launch)")
for k, v in sorted(rows.items()):
    m = statistics.median(v); print(f"{k:12s} {m:8.1f} ms  ratio {m/base:.3f}")
PY
ws_finish
