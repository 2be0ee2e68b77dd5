#!/usr/bin/env bash
# Runs on the GPU machine (issue #24). Always: the tensor-parallel decoder's
# GPU tests (two ranks in one process against the whole model, NCCL on one
# rank), NCCL's message sizes from its NVTX payloads on one rank
# (nccl-payload-check.sh) and the refusal of tensor_parallel = 2 where fewer
# GPUs are visible.
# With 2 or more GPUs: a torchrun TP=2 PyTorch program with a known late rank
# and the built-in Llama-3.1-8B decoder at TP=1 and TP=2, recorded; each
# rank's NCCL kernels, the collective skew and TTFT/TPOT printed.
# Usage: tp-check.sh BUILD_DIR OUT_DIR
source "$(dirname "$0")/lib.sh"
ws_args "BUILD_DIR OUT_DIR" 2 "$@"
cli=$build/app/warpscope-cli; workload=$build/app/warpscope-workload
db=$out/tp.wsdb
rm -f "$db"*
ws_header
"$build/tests/gpu/tensor_parallel_gpu_tests" 2>&1 | grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) |NCCL " || fail=1
# NCCL's message sizes from its NVTX payloads, one rank (any machine).
bash "$here/nccl-payload-check.sh" "$build" "$out/nccl-payload" || fail=1
gpus=$(nvidia-smi -L | wc -l)
tp2=$tmp/llama-8b-tp2.toml
sed -e 's/^name = .*/name = "llama-3.1-8b-bf16-tp2"/' -e 's/^cuda_graphs = true/cuda_graphs = true\ntensor_parallel = 2/' \
  "$src/resources/workloads/llama-3.1-8b-bf16.toml" > "$tp2"
if [ "$gpus" -lt 2 ]; then
  "$workload" run "$tp2" > "$tmp/refused.log" 2>&1
  code=$?
  if [ "$code" -ne 0 ] && grep -q "needs 2 GPUs, one per rank; this machine has $gpus" "$tmp/refused.log"; then
    echo "PASS tensor_parallel = 2 refused on $gpus GPU: $(grep -o 'tensor_parallel = 2 needs.*' "$tmp/refused.log")"
  else
    echo "FAIL tensor_parallel = 2 on $gpus GPU: exit $code"; cat "$tmp/refused.log"; fail=1
  fi
  echo "SKIP the TP=2 runs: $gpus GPU visible"
  ws_finish
fi

echo "== torchrun, 2 ranks, rank 1 late by 2 ms in every 4th all-reduce"
"$cli" record --db "$db" --label torch-tp2 --progress none -- \
  torchrun --standalone --nproc-per-node 2 "$here/torch_tp_allreduce.py" > "$tmp/torch.log" 2>&1 || fail=1
grep -aE "RANK|run [0-9]+" "$tmp/torch.log"
"$cli" collectives 1 --db "$db" || fail=1
"$cli" summary 1 --db "$db" --top 3 | sed -n '/^Processes/,/^$/p'

for cfg in "$src/resources/workloads/llama-3.1-8b-bf16.toml" "$tp2"; do
  echo "== $(basename "$cfg")"
  "$cli" record --db "$db" --progress none --workload "$cfg" > "$tmp/run.log" 2>&1 || fail=1
  grep -aE "tensor parallel|TTFT|TPOT|memory|quality|rank|run [0-9]+" "$tmp/run.log"
done
"$cli" collectives 3 --db "$db" --window requests || fail=1
"$cli" summary 3 --db "$db" --top 5 | sed -n '/^Processes/,/^$/p'
ws_finish
