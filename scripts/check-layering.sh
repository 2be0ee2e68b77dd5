#!/usr/bin/env bash
# What CMake cannot refuse. The arrows between core's libraries, and Qt and
# CUDA outside the targets that link them, are refused by the compiler (each
# library sees only the include roots it links: tests/layering). Headers in
# /usr/include are reachable from every target, so these greps keep them out:
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
check() {  # description, pattern, paths...
  local what=$1 pattern=$2; shift 2
  local hits
  hits=$(grep -rnE "$pattern" "$@" 2>/dev/null || true)
  if [ -n "$hits" ]; then echo "check-layering: $what:"; echo "$hits"; fail=1; fi
}
check "SQLite, JSON or TOML in what the injected collector links (model, util, wire, capture)" \
  '#include <(sqlite3|nlohmann|toml\+\+)' core/model core/util core/wire core/capture
check "SQLite's C API outside core/store (its headers declare no SQLite type)" '#include <sqlite3.h>' \
  core/model core/util core/wire core/capture core/config core/conventions core/analysis core/io \
  core/report core/record core/lod ui app kernels
check "SQL outside core/store (the store's functions are the door; the nsys importer reads a foreign file)" \
  'sql::(Statement|Db|Transaction)' --exclude=nsys_import.cpp core/model core/util core/wire \
  core/capture core/config core/conventions core/analysis core/io core/report core/record core/lod \
  ui app kernels
check "an include that climbs out of its folder (it would bypass the include roots)" \
  '#include "\.\./' core ui app kernels
[ $fail -eq 0 ] && echo "check-layering: ok"
exit $fail
