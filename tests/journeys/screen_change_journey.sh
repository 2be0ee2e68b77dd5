#!/usr/bin/env bash
# Quit at 1920×1080, start at 1366×768, back at 1920×1080, and once more on
# the same screen (the saved layout restored), all on one fresh settings
# folder; each start checks its own layout (screen_change_journey.cpp).
# Screenshots go to OUT_DIR to be looked at.
#   screen_change_journey.sh JOURNEY_BINARY OUT_DIR
set -euo pipefail
bin=$1 out=$2
mkdir -p "$out"
config=$(mktemp -d)
trap 'rm -rf "$config"' EXIT
export XDG_CONFIG_HOME=$config
step=0
for screen in 1920x1080 1366x768 1920x1080 1920x1080; do
  step=$((step + 1))
  WS_JOURNEY_SCREEN=$screen WS_JOURNEY_SHOT="$out/step$step-$screen.png" "$bin" \
    || { echo "screen change journey: start $step at $screen failed" >&2; exit 1; }
done
