#!/usr/bin/env bash
# Runs on the GPU machine: the shell blocks of README.md and docs/*.md marked
# `sh gpu` (recording a PyTorch program, the built-in decoder and kernel
# ladders, the GPU server), as written, with the gpu preset's programs first
# on PATH (tests/docs/run_doc_blocks.py --gpu; CI runs the other blocks).
# Usage: doc-blocks.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
ws_header
python3 "$src/tests/docs/run_doc_blocks.py" "$src" "$build/app" --gpu 2>&1 | tee "$out/doc-blocks.txt"
