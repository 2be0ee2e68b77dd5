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
# probe|header-or-member|what the compiler says when the arrow holds
for probe in "analysis_includes_record|record/recorder.h|No such file" \
             "kernels_include_store|store/store.h|No such file" \
             "record_includes_store_sql|store_db.h|No such file" \
             "record_reaches_store_db|Store::db()|is private within this context"; do
  IFS='|' read -r name what says <<<"$probe"
  target=layering_probe_$name
  if out=$(cmake --build "$build" --target "$target" 2>&1); then
    echo "layering: $target built, but $what must be out of its reach"; fail=1
  elif ! grep -q "$says" <<<"$out" || ! grep -qF "${what%%(*}" <<<"$out"; then
    echo "layering: $target failed for another reason than $what:"; echo "$out"; fail=1
  else
    echo "layering: $target refused ($what not reachable) as it should"
  fi
done
exit $fail
