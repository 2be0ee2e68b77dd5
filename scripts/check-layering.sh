#!/usr/bin/env bash
# Keeps the dependency arrows of DESIGN.md: core and the CLI use no Qt, core
# and the UI use no CUDA, the UI runs no SQL.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
check() {  # description, pattern, paths...
  local what=$1 pattern=$2; shift 2
  local hits
  hits=$(grep -rnE "$pattern" "$@" 2>/dev/null || true)
  if [ -n "$hits" ]; then echo "check-layering: $what:"; echo "$hits"; fail=1; fi
}
check "Qt in core/ or the CLI" '#include <Q|#include <qcustomplot' core app/cli
check "CUDA in core/ (outside capture) or ui/" '#include <(cuda|cupti|nvml)' \
  --exclude-dir=capture core ui
check "SQL in ui/" '#include <sqlite3.h>|sql::Statement' ui
[ $fail -eq 0 ] && echo "check-layering: ok"
exit $fail
