#!/usr/bin/env bash
# Opens the HTML report of a shipped H200 decoder run (against its baseline) in
# headless Chromium: every chart must decode and no image may be broken. Keeps
# a screenshot and the PDF's first page as PNGs in OUT_DIR for a person to look at.
# Usage: html_report_in_browser.sh WARPSCOPE WARPSCOPE_CLI SAMPLE_STORE OUT_DIR
set -euo pipefail
warpscope=$1; cli=$2; store=$3; out=$4
rm -rf "$out"; mkdir -p "$out"
cp "$store" "$out/samples.wsdb"
db=$out/samples.wsdb
id() { "$cli" ls --db "$db" --json | python3 -c "import json,sys; print(next(r['id'] for r in json.load(sys.stdin) if r['label'] == '$1'))"; }
run=$(id llama-3.2-1b-optimized-graphs); base=$(id llama-3.2-1b-optimized)
export QT_QPA_PLATFORM=offscreen
"$warpscope" report "$run" --db "$db" --baseline "$base" -o "$out/report.html" > /dev/null
"$warpscope" report "$run" --db "$db" --baseline "$base" -o "$out/report.pdf" > /dev/null
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "chromium is not installed (scripts/install-deps.sh installs it)" >&2; exit 1; fi
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000)
body=$("$browser" "${flags[@]}" --dump-dom "file://$out/report.html" 2>/dev/null | grep -o '<body[^>]*>' || true)
echo "rendered: $body"
"$browser" "${flags[@]}" --window-size=1200,2400 --screenshot="$out/report-html.png" \
  "file://$out/report.html" > /dev/null 2>&1
pdftoppm -r 60 -png -f 1 -l 1 "$out/report.pdf" "$out/report-pdf-page" 
[[ $body =~ data-charts-drawn=\"([0-9]+)\" ]] && drawn=${BASH_REMATCH[1]} || drawn=0
[[ $body =~ data-broken-images=\"0\" ]] || { echo "broken images in the report" >&2; exit 1; }
[ "$drawn" -ge 5 ] || { echo "only $drawn charts were drawn, expected 5" >&2; exit 1; }
[ -s "$out/report-html.png" ] || { echo "no screenshot" >&2; exit 1; }
head -c 4 "$out/report.pdf" | grep -q '%PDF' || { echo "report.pdf is not a PDF" >&2; exit 1; }
echo "html_report_in_browser: $drawn charts drawn, none broken; screenshots in $out"
