#!/usr/bin/env python3
"""Import at scale (issue 21): imports a generated Kineto trace with
`warpscope-cli import` and, in the same run, times `json.load` of the same
file, each in its own child process, with the child's peak RSS from wait4's
rusage (ru_maxrss). Prints one Markdown table row per file size. With
--nsys-kernels, also generated Nsight Systems SQLite exports of that many
kernels (and as many cudaLaunchKernel calls), beside Python's sqlite3 reading
the same kernels with their names in start order.

    tests/bench/import_scale.py --cli build/release/app/warpscope-cli --mb 100 500 [--gzip]
        [--nsys-kernels 10000000] [--keep DIR]
        (generated files are written under DIR, default a temp folder)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "..", "tools", "make_big_kineto.py")
NSYS_GENERATOR = os.path.join(HERE, "..", "tools", "make_big_nsys.py")
# What a user's script reads from an nsys export to list its kernels.
READ_NSYS_KERNELS = """import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = 0
for row in db.execute("SELECT k.start, k.end, k.streamId, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                      "JOIN StringIds s ON s.id = k.demangledName ORDER BY k.start"):
    n += 1
"""


def run(argv):
    """Wall seconds and peak RSS (MiB) of one child process."""
    t0 = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - t0
    err = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit("%s failed (%d): %s" % (argv[0], child.returncode, err[-2000:]))
    return seconds, usage.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True, help="warpscope-cli (a release build)")
    ap.add_argument("--mb", type=float, nargs="*", default=[500.0])
    ap.add_argument("--nsys-kernels", type=int, nargs="*", default=[])
    ap.add_argument("--gzip", action="store_true", help="also import the .json.gz of each file")
    ap.add_argument("--keep", help="folder for the generated traces (kept for reruns)")
    args = ap.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="ws-import-scale-")
    os.makedirs(folder, exist_ok=True)
    if args.mb:
        print("| file | size | import | json.load | json.load / import | import peak RSS | json.load peak RSS |")
        print("|---|---:|---:|---:|---:|---:|---:|")
    for mb in args.mb:
        path = os.path.join(folder, "kineto_%gmb.json" % mb)
        if not os.path.exists(path):
            subprocess.run([sys.executable, GENERATOR, path, "--mb", str(mb)], check=True,
                           stdout=subprocess.DEVNULL)
        files = [path]
        if args.gzip:
            if not os.path.exists(path + ".gz"):
                subprocess.run(["gzip", "-k", "-6", path], check=True)
            files.append(path + ".gz")
        size = os.path.getsize(path)
        # json.load first: it also brings the file into the page cache.
        load_s, load_mb = run([sys.executable, "-c",
                               "import json, sys; json.load(open(sys.argv[1]))", path])
        for f in files:
            db = os.path.join(folder, "bench.wsdb")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            imp_s, imp_mb = run([args.cli, "import", f, "--db", db])
            print("| %s | %.0f MB | %.1f s | %.1f s | %.2f× | %.0f MiB | %.0f MiB |" %
                  (os.path.basename(f), size / 1e6, imp_s, load_s, load_s / imp_s, imp_mb, load_mb),
                  flush=True)
    if args.nsys_kernels:
        print()
        print("| nsys export | size | import | sqlite3 read (Python) | import peak RSS | read peak RSS |")
        print("|---|---:|---:|---:|---:|---:|")
    for kernels in args.nsys_kernels:
        path = os.path.join(folder, "nsys_%dk.sqlite" % (kernels // 1000))
        if not os.path.exists(path):
            subprocess.run([sys.executable, NSYS_GENERATOR, path, "--kernels", str(kernels)],
                           check=True, stdout=subprocess.DEVNULL)
        read_s, read_mb = run([sys.executable, "-c", READ_NSYS_KERNELS, path])
        db = os.path.join(folder, "bench.wsdb")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        imp_s, imp_mb = run([args.cli, "import", path, "--db", db])
        print("| %s kernels | %.0f MB | %.1f s | %.1f s | %.0f MiB | %.0f MiB |" %
              (format(kernels, ","), os.path.getsize(path) / 1e6, imp_s, read_s, imp_mb, read_mb),
              flush=True)
    if not args.keep:
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
        os.rmdir(folder)


if __name__ == "__main__":
    main()
