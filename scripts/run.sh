#!/usr/bin/env bash
# Installs what is missing, builds the release preset and starts the Warpscope
# workbench on the default store (~/.local/share/warpscope/runs.wsdb).
# Extra arguments go to the GUI, e.g. scripts/run.sh --db other.wsdb
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
exec build/release/app/warpscope "$@"
