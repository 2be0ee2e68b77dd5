#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole suite through CTest +
# GoogleTest: the dev preset (CUDA parts included where a toolkit exists), then
# the asan preset (address + undefined sanitizers, CUDA left out), then the
# fuzz harnesses for about a minute (scripts/fuzz.sh).
# GPU tests skip cleanly on a machine without a GPU. Last, the Debian package
# is built, installed and its programs started.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)
for preset in dev asan; do
  echo "== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "== $preset: test"
  ctest --preset "$preset" -j "$jobs"
done
scripts/fuzz.sh  # libFuzzer harnesses under ASan+UBSan, about a minute, then the regression inputs
echo "== package: build, install and start the .deb"
scripts/package-check.sh
