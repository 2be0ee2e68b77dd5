#!/usr/bin/env bash
# Runs on the GPU machine: a serving-shaped launch storm (capture_fixture
# streams: N ~1 µs kernels from 16 threads, one stream each) untraced and
# recorded, side by side; prints the launch rate both ways, what the recorder
# received over time, the drain after the program ended, dropped records, the
# recorder's peak memory, and how long summary/stats take on the stored run.
# Usage: scale-record-check.sh BUILD_DIR OUT_DIR  (KERNELS=N, default: as many as
# launch in ~50 s up to 100 M; STREAMS=16)
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
ws_header
kernels=${KERNELS:-0}
streams=${STREAMS:-16}
db=$tmp/scale.wsdb  # the store stays here: only the figures come back
python3 "$here/scale_record.py" "$build" "$db" "$kernels" "$streams" "$out" || fail=1
ls -la "$db" | awk '{print "store size", $5, "bytes"}'
ws_finish
