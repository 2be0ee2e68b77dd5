#!/usr/bin/env bash
# NCCL message sizes from NCCL's NVTX payloads (issue #24), on one GPU: a
# world-size-1 PyTorch program makes NCCL calls of known sizes under
# `warpscope-cli record`; every call must be stored in collective_calls with
# the size the program printed, and the program must run as it does untraced.
# (With one rank NCCL launches no collective kernels, so the kernel join is
# checked by tp-check.sh on two GPUs.)
# Usage: nccl-payload-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli; db=$out/nccl-payload.wsdb
ws_header
"$cli" record --db "$db" --progress none -- python3 "$here/torch_nccl_sizes.py" > "$out/nccl-payload.txt" 2>&1 || fail=1
grep -E "^(NCCL|EXPECT)|warpscope\]" "$out/nccl-payload.txt"
python3 - "$db" "$out/nccl-payload.txt" <<'PY' || fail=1
import collections, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT collective, bytes, end_ns - start_ns, communicator FROM collective_calls "
                  "WHERE run_id = (SELECT max(id) FROM runs)").fetchall()
got = collections.Counter((c, b) for c, b, _, _ in rows)
print(len(rows), "NCCL calls stored:", dict(got))
print("communicators:", sorted({hex(c & (2**64 - 1)) for *_, c in rows}))
ok = True
for line in open(sys.argv[2]):
    if line.startswith("EXPECT"):
        _, kind, size, calls = line.split()
        n = got.get((kind, int(size)), 0)
        print(f"{kind} {size} B: {n} stored, {calls} made", "PASS" if n == int(calls) else "FAIL")
        ok = ok and n == int(calls)
sys.exit(0 if ok else 1)
PY
ws_finish
