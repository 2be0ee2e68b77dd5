#!/usr/bin/env bash
# Fails when a project source file differs from what the pinned clang-format makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=$(command -v clang-format-14 || true)
if [ -z "$formatter" ]; then
  echo "check-format: clang-format-14 is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files --cached --others --exclude-standard \
  'app/*' 'core/*' 'kernels/*' 'ui/*' 'tests/*' 'scripts/*' | grep -E '\.(cpp|h|hpp|cu|cuh)$' || true)
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! "$formatter" --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: not formatted (run: clang-format-14 -i FILE):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
