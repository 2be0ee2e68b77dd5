#!/usr/bin/env bash
# Runs on the GPU machine: how late the client sees each token, against the
# server's own clock. The built-in 1B server recorded with bench serve
# --server at concurrency 1 and 256 (random 128 -> 64 tokens): for every
# client token, its arrival minus the end of the latest engine.step before
# it (the step that produced it; one clock). That span holds the server's
# SSE write and the client's read: an upper bound on what the client adds.
# Each point runs with both of the client's transports, side by side: the
# socket loop (chunks timed by the kernel's receive stamp) and libcurl (timed
# when read).
# Usage: [POINTS=...] client-delivery-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
runner=$build/app/warpscope-workload
preset=$src/resources/workloads/serve-llama-1b.toml
db=$out/delivery.wsdb
rm -f "$db"*
port=8501
ws_header
# POINTS="C PROMPTS CLIENT;..." picks the points (default: all four below).
IFS=';' read -r -a points <<<"${POINTS:-1 64 socket;1 64 libcurl;256 512 socket;256 512 libcurl}"
for point in "${points[@]}"; do
  read -r concurrency prompts client <<<"$point"
  echo "== concurrency $concurrency, $prompts prompts, --http-client $client"
  timeout 300 "$cli" bench serve --endpoint "http://127.0.0.1:$port" --model serve-llama-1b \
    --input-len 128 --output-len 64 --ignore-eos --seed 1 --num-prompts "$prompts" \
    --max-concurrency "$concurrency" --http-client "$client" --label "delivery-c$concurrency-$client" --db "$db" \
    --server-timeout 300 --server -- "$runner" serve "$preset" --port "$port" > "$tmp/c$concurrency.txt" 2>&1 || fail=1
  grep -aE "^(requests|ttft|itl|client:)" "$tmp/c$concurrency.txt"
  grep -aiE "request [0-9]+.*(fail|error)|error:" "$tmp/c$concurrency.txt" | head -5
  run=$("$cli" ls --db "$db" --json | python3 -c "import json,sys; print(json.load(sys.stdin)[-1]['id'])")
  "$cli" export "$run" --db "$db" --format json -o "$tmp/run.json" || fail=1
  python3 - "$tmp/run.json" <<'PY' || fail=1
import bisect, json, sys
run = json.load(open(sys.argv[1]))
ends = sorted(r["end_ns"] for r in run["ranges"] if r["name"].split(":")[0] == "engine.step")
firsts, laters = [], []
for t in run["tokens"]:
    i = bisect.bisect_right(ends, t["time_ns"])
    if i:
        (firsts if t["token_index"] == 0 else laters).append((t["time_ns"] - ends[i - 1]) / 1000)
def pct(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(p / 100 * len(v)))]
for name, v in (("first tokens (TTFT)", firsts), ("later tokens (ITL)", laters)):
    if v:
        print(f"      {name}: {len(v)} tokens, arrival - end of their step: p50 {pct(v, 50):.1f} us, "
              f"p99 {pct(v, 99):.1f} us, max {max(v):.1f} us")
for line in [l for l in run.get("log", "").splitlines() if "failed" in l or "error" in l or l.startswith("request ") or "] request " in l][:4]:
    print("      log:", line[:300])
ok = len(firsts) + len(laters) == len(run["tokens"]) and len(ends) > 0
print(("ok    " if ok else "FAIL  ") + f"{len(ends)} engine steps, every token placed after one")
sys.exit(0 if ok else 1)
PY
done
ws_finish
