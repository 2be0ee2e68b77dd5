#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole suite through CTest +
# GoogleTest: the release preset (CUDA parts included where a toolkit exists;
# the same build scripts/run.sh starts and the package is made from), then
# the asan preset (address + undefined sanitizers, CUDA left out), then the
# fuzz harnesses for about a minute (scripts/fuzz.sh). GPU tests skip cleanly
# on a machine without a GPU. Last, the Debian package is made from the
# release build, installed and its programs started. Prints each stage's time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
stages=()
stage() {  # stage NAME COMMAND...: runs it and keeps its wall time
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  stages+=("$(printf '%-18s %4d min %2d s' "$name" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)))")
}
report() {
  echo "== stage times"
  printf '  %s\n' "${stages[@]}"
  echo "  total              $((SECONDS / 60)) min $((SECONDS % 60)) s"
}
trap report EXIT
stage "install-deps" scripts/install-deps.sh
for preset in release asan; do
  stage "$preset build" bash -c "cmake --preset $preset >/dev/null && cmake --build --preset $preset -j $jobs"
  stage "$preset tests" ctest --preset "$preset" -j "$jobs"
done
stage "fuzz" scripts/fuzz.sh  # libFuzzer harnesses under ASan+UBSan, about a minute, then the regression inputs
stage "package" scripts/package-check.sh  # the release build above, packaged, installed, started
