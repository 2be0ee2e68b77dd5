#!/usr/bin/env bash
# Runs on the GPU machine's host CPUs: bench serve's capacity on one core
# (tests/bench/client_capacity.py): Warpscope's server on the CPU backend on
# cores 1-15, the client pinned to core 0, at 256 and 1,000 streams, the
# socket client and libcurl alternating against the same server.
# Usage: client-capacity-check.sh BUILD_DIR OUT_DIR  (ROUNDS=N, default 2; STREAMS="256 1000")
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
ws_header
last=$(($(nproc) - 1))
for streams in ${STREAMS:-256 1000}; do
  echo "== $streams streams, client on core 0, server on cores 1-$last"
  timeout 280 python3 "$src/tests/bench/client_capacity.py" --cli "$build/app/warpscope-cli" \
    --workload "$build/app/warpscope-workload" --streams "$streams" --prompts $((streams * 3)) \
    --client-cpu 0 --server-cpus "1-$last" --rounds "${ROUNDS:-2}" || fail=1
done
ws_finish
