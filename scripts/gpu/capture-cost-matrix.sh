#!/usr/bin/env bash
# Runs on the GPU machine: issue #49's capture-cost matrix (capture_cost_matrix.py
# says what it measures). Needs a build configured with
# -DWARPSCOPE_BUILD_EXPERIMENTS=ON (the bare-CUPTI floor, BUILD_DIR/exp).
# PROGRAMS, ROUNDS and CORES as the Python script reads them.
# Usage: capture-cost-matrix.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
[ -f "$build/exp/libcupti_floor_inject.so" ] ||
  ws_die "needs $build/exp/libcupti_floor_inject.so (configure with -DWARPSCOPE_BUILD_EXPERIMENTS=ON)"
ws_header
python3 "$here/capture_cost_matrix.py" "$build" "$out" || fail=1
ws_finish
