#!/usr/bin/env bash
# Builds the layering probes (tests/layering/*.cpp, EXCLUDE_FROM_ALL) in the
# given build folder: the allowed include must compile, each forbidden one
# must fail on exactly that include. Proves CMake itself enforces the arrows.
set -uo pipefail
build=$1
fail=0
if ! out=$(cmake --build "$build" --target layering_probe_allowed 2>&1); then
  echo "layering: the allowed include (analysis -> store) did not build:"; echo "$out"; exit 1
fi
for probe in analysis_includes_record:record/recorder.h kernels_include_store:store/store.h; do
  target=layering_probe_${probe%%:*} header=${probe#*:}
  if out=$(cmake --build "$build" --target "$target" 2>&1); then
    echo "layering: $target built, but $header must be out of its reach"; fail=1
  elif ! grep -q "$header: No such file" <<<"$out"; then
    echo "layering: $target failed for another reason than $header:"; echo "$out"; fail=1
  else
    echo "layering: $target refused ($header not reachable) as it should"
  fi
done
exit $fail
