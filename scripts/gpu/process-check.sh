#!/usr/bin/env bash
# Runs on the GPU machine: a PyTorch parent and two spawned workers on one GPU
# recorded as one run; every process's kernels on their own stream ids, each
# stream's process stored (gpu_streams), matmul counts per process as printed;
# each process's command and end (process.* properties) and the summary split
# by process; then the same with worker 2 killed (SIGKILL) after its work.
# Usage: process-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli
db=$out/processes.wsdb
rm -f "$db"*
ws_header
"$cli" record --db "$db" --label two-workers --progress none -- python3 "$here/torch_two_workers.py" > "$tmp/log" 2>&1 || fail=1
grep -aE "PARENT|WORKER|run [0-9]+" "$tmp/log"
"$cli" export 1 --db "$db" --format json -o "$tmp/run.json" || fail=1
python3 - "$db" "$tmp/run.json" "$tmp/log" <<'PY' || fail=1
import collections, json, re, sqlite3, sys
db, run, log = sqlite3.connect(sys.argv[1]), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
streams = {(d, s): (p, c) for d, s, p, c in db.execute(
    "select device_id, stream_id, process_id, cuda_stream_id from gpu_streams where run_id = 1")}
print("gpu_streams:", sorted((s, p, c) for (d, s), (p, c) in streams.items()))
gemms = collections.Counter()
for k in run["kernels"]:
    pid = streams.get((k["device_id"], k["stream_id"]), ("?",))[0]
    if "gemm" in k["name"].lower() or "sgemm" in k["name"].lower() or "cutlass" in k["name"].lower():
        gemms[pid] += 1
expected = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"pid=(\d+)(?: rank=\d+)? matmuls=(\d+)", log)}
print("matmul kernels per process:", dict(gemms), "printed:", expected)
# cuBLAS may launch more than one GEMM-named kernel per matmul (seen: 2 on the
# H200): the same whole number of kernels per matmul in every process.
per = {p: gemms.get(p, 0) / n for p, n in expected.items()}
ok = (len({p for p, _ in streams.values()}) == 3 and len(expected) == 3
      and len(set(per.values())) == 1 and next(iter(per.values())).is_integer()
      and next(iter(per.values())) >= 1)
print("GEMM-named kernels per matmul, per process:", per)
print(("PASS" if ok else "FAIL") + " three processes, each one's matmuls on its own streams")
sys.exit(0 if ok else 1)
PY
"$cli" summary 1 --db "$db" --top 1 | sed -n '/^Processes/,/^$/p'
"$cli" summary 1 --db "$db" --json > "$tmp/summary.json" || fail=1
# CUDA numbers each process's calls from 1: the recording keeps them apart, so
# each worker's range is credited its own kernels only (the same number per
# matmul in both, 60 and 70 matmuls), none of the other worker's.
python3 - "$tmp/summary.json" <<'PY' || fail=1
import json, sys
ranges = {r["name"]: r["kernel_inclusive_count"] for r in json.load(open(sys.argv[1]))["ranges"]}
counts = {rank: ranges.get(f"worker {rank}", 0) for rank in (1, 2)}
per = {rank: counts[rank] / (50 + 10 * rank) for rank in (1, 2)}
ok = counts[1] > 0 and per[1] == per[2] and per[1].is_integer()
print(f"kernels in each worker's range: {counts}, per matmul {per}")
print(("PASS" if ok else "FAIL") + " each worker's range holds its own kernels only")
sys.exit(0 if ok else 1)
PY

echo "== worker 2 killed (SIGKILL) after its matmuls"
"$cli" record --db "$db" --label worker-killed --progress none -- python3 "$here/torch_two_workers.py" --kill-rank 2 > "$tmp/killed.log" 2>&1 || fail=1
grep -aE "PARENT|WORKER|run [0-9]+|without flushing" "$tmp/killed.log"
"$cli" summary 2 --db "$db" --top 1 | sed -n '/^Processes/,/^$/p'
"$cli" summary 2 --db "$db" --json > "$tmp/killed.json" || fail=1
python3 - "$tmp/summary.json" "$tmp/killed.json" "$tmp/killed.log" <<'PY' || fail=1
import json, re, sys
clean, killed, log = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    return ok
ok = check(len(clean["processes"]) == 3 and all(p["end"] == "exited" for p in clean["processes"])
           and sum("spawned worker" in p["command"] or "multiprocessing" in p["command"] for p in clean["processes"]) == 2,
           "clean run: 3 processes, every one 'exited', two spawned workers' command lines")
victim = int(re.search(r"WORKER pid=(\d+) rank=2", log).group(1))
ends = {p["pid"]: p["end"] for p in killed["processes"]}
kernels = {p["pid"]: p["kernels"] for p in killed["processes"]}
ok &= check(ends.get(victim) == "lost" and sum(e == "exited" for e in ends.values()) == 2,
            f"killed run: worker {victim} 'lost', the other two 'exited' ({ends})")
ok &= check(kernels.get(victim, 0) > 0, f"the killed worker's kernels kept ({kernels.get(victim, 0)})")
sys.exit(0 if ok else 1)
PY
ws_finish
