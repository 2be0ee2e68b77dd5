#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz preset: clang 14, address + undefined
# sanitizers) and fuzzes each for SECONDS_PER_TARGET seconds (default 8: the
# nine targets take about a minute and a half), starting from a temporary copy of the
# seed corpus; then replays every input in tests/fuzz/regressions/TARGET/.
# Fails on any crash, sanitizer report, undocumented exception, timeout (10 s)
# or memory blow-up (2 GB), naming the reproducer. docs/fuzzing.md explains.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]
# WARPSCOPE_FUZZ_KEEP_GOING=1 fuzzes on past crashes (libFuzzer's fork mode)
# and keeps every crash input: the longer run docs/fuzzing.md reports.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-8}
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET]" >&2; exit 2; }
targets=(kineto_import vllm_import client_results_import nsys_import wire_decoder event_codec store_open workload_config
  serve_response)
build=build/fuzz
bin=$build/tests/fuzz
artifacts=$PWD/$build/fuzz-artifacts/$(date -u +%Y%m%dT%H%M%SZ)  # this run's crash inputs

echo "== fuzz: configure and build (clang 14, fuzzer + address + undefined)"
nice -n 10 cmake --preset fuzz >/dev/null
nice -n 10 cmake --build --preset fuzz -j "$(nproc)"

if command -v llvm-symbolizer-14 >/dev/null; then
  export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-14)
fi
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
work=$(mktemp -d "${TMPDIR:-/tmp}/warpscope-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The harnesses' scratch folders (temp stores and exports) go here too, so a
# harness that aborts on a finding leaves nothing behind in /tmp.
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
mkdir -p "$artifacts"

# Seeds: what make_fuzz_seeds encodes (capture streams, event chunks, the nsys
# export fixture as SQLite, an empty store), the checked-in corpus, the test
# fixtures, the bundled workload configs, and the fixed regressions.
"$bin/make_fuzz_seeds" "$work/seeds" tests/data/nsys_export.sql
for t in "${targets[@]}"; do
  mkdir -p "$work/seeds/$t" "$work/corpus/$t"
  for dir in "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t"; do
    if [ -d "$dir" ]; then find "$dir" -type f -exec cp {} "$work/seeds/$t/" \; ; fi
  done
done
cp tests/data/vllm_result.json "$work/seeds/vllm_import/"
cp tests/data/guidellm-0.3-benchmarks.json "$work/seeds/client_results_import/"
cp tests/data/fixture.wsdb "$work/seeds/store_open/"
cp resources/workloads/*.toml "$work/seeds/workload_config/"

failed=()
report() {  # target, log: the sanitizer's or libFuzzer's account, and where the input is
  echo "!! $1: FAILED; its log ends:" >&2
  grep -v '^INFO:\|^#[0-9]' "$2" | tail -n 40 >&2
  grep -o 'Test unit written to .*\|Running: .*' "$2" | tail -n 1 | sed 's/^/!! reproducer: /' >&2
  if [ -n "${WARPSCOPE_FUZZ_KEEP_GOING:-}" ]; then
    grep -E '^#[0-9]+: cov' "$2" | tail -n 1 >&2 || true
    ls "$artifacts/$1"-* 2>/dev/null | sed 's/^/!! crash input: /' >&2 || true
  fi
  failed+=("$1")
}

for t in "${targets[@]}"; do
  log=$work/$t.log
  args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
        -artifact_prefix="$artifacts/$t-")
  [ -f "tests/fuzz/dict/$t.dict" ] && args+=(-dict="tests/fuzz/dict/$t.dict")
  if [ -n "${WARPSCOPE_FUZZ_KEEP_GOING:-}" ]; then
    args+=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  fi
  rc=0
  nice -n 10 "$bin/fuzz_$t" "${args[@]}" "$work/corpus/$t" "$work/seeds/$t" >"$log" 2>&1 || rc=$?
  # Fork mode may exit 0 after crashes it ignored: a crash input written is a failure too.
  if [ "$rc" -eq 0 ] && ! compgen -G "$artifacts/$t-*" >/dev/null; then
    # e.g. "#41210 DONE cov: 2301 ft: 9120 corp: 412/61Kb lim: 4096 exec/s: 5151 rss: 310Mb"
    # (fork mode: "#41210: cov: 2301 ft: 9120 corp: 412 exec/s 228 oom/timeout/crash: 0/0/0 ...")
    done_line=$(grep -E '^#[0-9]+(:|[[:space:]]+DONE)' "$log" | tail -n 1 || true)
    printf '%-16s %s\n' "$t" "${done_line:-(no final stats)}"
  else
    report "$t" "$log"
  fi
done

echo "== fuzz: replaying tests/fuzz/regressions"
for t in "${targets[@]}"; do
  dir=tests/fuzz/regressions/$t
  [ -d "$dir" ] || continue
  mapfile -t inputs < <(find "$dir" -type f | sort)
  [ ${#inputs[@]} -gt 0 ] || continue
  log=$work/$t.replay.log
  if nice -n 10 "$bin/fuzz_$t" -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$artifacts/$t-replay-" \
    "${inputs[@]}" >"$log" 2>&1; then
    echo "$t: ${#inputs[@]} regression inputs pass"
  else
    report "$t (regression replay)" "$log"
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (crash inputs under $artifacts)" >&2
  exit 1
fi
echo "fuzz: no crashes"
