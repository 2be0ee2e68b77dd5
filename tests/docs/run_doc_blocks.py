#!/usr/bin/env python3
"""Runs every shell block of README.md and docs/*.md as written.

A block is a fence opened with ```sh, followed by what it is:
  ```sh           run here; it must exit 0
  ```sh fails     run here; it must exit non-zero (an example of a refusal)
  ```sh server    one command that serves until stopped: started, awaited on
                  its "ready" line, kept for the blocks after it in the same
                  file, stopped with SIGINT at the file's end
  ```sh gpu       needs an NVIDIA GPU: run by scripts/gpu/doc-blocks.sh there
                  ("gpu server": a GPU server, started and stopped there as above)
  ```sh ci        .ci/run itself runs it (the quick start, packaging)
  ```sh host      needs a GPU server of the reader's own (ssh alias): shown,
                  not run; tests/remote covers the same commands on a local sshd
Blocks run in order, one fresh HOME and work folder per file (a copy of
resources/, the bundled samples, a small ShareGPT file), with this build's
programs first on PATH and the GUI on an offscreen 1366x768 screen. Any other
marker, or a block that ends otherwise than it says, fails the run.

  run_doc_blocks.py SOURCE_DIR BIN_DIR [--gpu]
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

MARKERS = {"fails", "server", "gpu", "ci", "host"}  # any combination, e.g. "gpu server"
FENCE = re.compile(r"^```(\w+)\s*(.*?)\s*$")
SHAREGPT = [
    {"id": "a", "conversations": [
        {"from": "human", "value": "Say hello to the benchmark, please."},
        {"from": "gpt", "value": "Hello, benchmark! It is good to meet you today."}]},
    {"id": "b", "conversations": [
        {"from": "human", "value": "Count from one to five."},
        {"from": "gpt", "value": "One, two, three, four, five."}]},
    {"id": "c", "conversations": [{"from": "human", "value": "A single turn is skipped."}]},
]


def blocks_of(path):
    """(line, marker, text) of each shell block of a Markdown file."""
    out, inside, lines = [], None, []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if inside is None:
                m = FENCE.match(line)
                if m and m.group(1) in ("sh", "bash", "shell"):
                    inside, lines = (number, m.group(2)), []
            elif line.startswith("```"):
                out.append((inside[0], inside[1], "".join(lines)))
                inside = None
            else:
                lines.append(line)
    return out


def prepare(source, work):
    shutil.copytree(os.path.join(source, "resources"), os.path.join(work, "resources"))
    shutil.copytree(os.path.join(source, "scripts"), os.path.join(work, "scripts"))
    with open(os.path.join(work, "ShareGPT_V3_unfiltered_cleaned_split.json"), "w") as f:
        json.dump(SHAREGPT, f)
    os.makedirs(os.path.join(work, "home"))
    screen = os.path.join(work, "screen.json")
    with open(screen, "w") as f:
        json.dump({"screens": [{"name": "docs", "x": 0, "y": 0, "width": 1366, "height": 768,
                                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}, f)
    return screen


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, bins = os.path.abspath(sys.argv[1]), [os.path.abspath(b) for b in sys.argv[2].split(":")]
    gpu = "--gpu" in sys.argv[3:]
    files = [os.path.join(source, "README.md")] + sorted(
        os.path.join(source, "docs", n) for n in os.listdir(os.path.join(source, "docs"))
        if n.endswith(".md"))
    failures, ran, shown = [], 0, []
    for path in files:
        blocks = blocks_of(path)
        if not blocks:
            continue
        rel = os.path.relpath(path, source)
        work = tempfile.mkdtemp(prefix="warpscope-docs-")
        screen = prepare(source, work)
        env = dict(os.environ, HOME=os.path.join(work, "home"),
                   PATH=":".join(bins + [os.environ.get("PATH", "")]),
                   QT_QPA_PLATFORM="offscreen:configfile=" + screen,
                   XDG_RUNTIME_DIR=work, XDG_CONFIG_HOME=os.path.join(work, "config"))
        servers = []
        try:
            for line, marker, text in blocks:
                where = f"{rel}:{line}"
                words = set(marker.split())
                if not words <= MARKERS:
                    failures.append(f"{where}: unknown marker '{marker}' (of {sorted(MARKERS)})")
                    continue
                if not text.strip():
                    failures.append(f"{where}: an empty block")
                    continue
                wanted = ("gpu" in words) if gpu else not words & {"gpu", "ci", "host"}
                if not wanted:
                    shown.append(f"{where} ({marker})")
                    continue
                ran += 1
                if "server" in words:
                    p = subprocess.Popen(["bash", "-c", "exec " + text.strip()], cwd=work, env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         text=True, start_new_session=True)
                    servers.append(p)
                    seen = []
                    for out in p.stdout:  # its own "ready" line, as it comes
                        seen.append(out)
                        if "ready" in out:
                            break
                    else:
                        failures.append(f"{where}: the server ended before it said ready:\n"
                                        + "".join(seen[-5:]))
                    # What it says from now on is read, so it never blocks on a full pipe.
                    threading.Thread(target=lambda f=p.stdout: f.read(), daemon=True).start()
                    print(f"{where}: server up: {seen[-1].strip() if seen else ''}")
                    continue
                started = time.monotonic()
                r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=work,
                                   env=env, capture_output=True, text=True, timeout=600)
                took = time.monotonic() - started
                ok = (r.returncode != 0) if "fails" in words else (r.returncode == 0)
                print(f"{where}: exit {r.returncode} in {took:.1f} s"
                      + ("" if ok else "  <-- not as the block says"))
                if not ok:
                    tail = (r.stdout + r.stderr).strip().splitlines()[-8:]
                    failures.append(f"{where}: exit {r.returncode}:\n    " + "\n    ".join(tail))
        finally:
            for p in servers:
                os.killpg(p.pid, signal.SIGINT)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
            shutil.rmtree(work, ignore_errors=True)
    print(f"doc blocks: {ran} run, {len(shown)} left to others: " + ", ".join(shown))
    for f in failures:
        print("FAILED " + f, file=sys.stderr)
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
