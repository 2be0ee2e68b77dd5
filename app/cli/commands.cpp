#include "cli/commands.h"

namespace ws::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"ls", "ls [--db FILE] [--json]", "list the runs in a store", cmdLs},
        {"show", "show RUN [--json] [--db FILE]",
         "one run's metadata, device, record counts, properties and the end of its log", cmdShow},
        {"rm", "rm RUN... [--db FILE]", "delete runs and everything they recorded", cmdRm},
        {"label", "label RUN TEXT [--db FILE]", "rename a run (its label)", cmdLabel},
        {"tag", "tag RUN [TAGS] [--add T,...] [--remove T,...] [--db FILE]",
         "show a run's tags, replace them with the comma-separated TAGS (\"\" clears them), or "
         "add and remove some",
         cmdTag},
        {"compact", "compact [--db FILE] [--progress line|json|none]",
         "rewrite older event chunks in the current, smaller format and give the space of "
         "deleted runs back to the file system",
         cmdCompact},
        {"export",
         "export RUN --format csv|json|chrome-trace|perfetto -o FILE[.gz] [--table NAME] "
         "[--window run|requests|range:NAME|FROM:TO] [--range NAME] [--db FILE]",
         "write a run as JSON (everything), one table as CSV (default: kernels), a Chrome "
         "trace for Perfetto UI / chrome://tracing, or a Perfetto protobuf trace (.pftrace: "
         "a track per GPU stream, per thread and per counter, launch flows), of the whole run "
         "or a window of it; gzip-compressed when FILE ends in .gz",
         cmdExport},
        {"record",
         "record [--db FILE] [--label L] [--workload CONFIG] [--capture default|lean] "
         "[--no-driver-api] [--all-apis] "
         "[--graph-trace "
         "node|graph] [--capture-range none|cudaProfilerApi] [--metrics "
         "roofline|dram|NAME,... [--cache-control all|none] [--dram-pass on|off]] [--sample-ms N] "
         "[--gpu-metrics [--gpu-metrics-set NAME,...] [--gpu-metrics-hz N]] "
         "[--pc-sampling [--pc-sampling-period N]] "
         "[--progress line|json|none] [--host H [--remote-db FILE] [--remote-cli PATH]] -- "
         "PROGRAM ARGS...",
         "run any CUDA program with capture injected and store it as a run.\n"
         "      --host H records on H (user@host or an ssh config alias) through ssh and pulls\n"
         "      the finished run into the local store; PROGRAM and its paths are H's.\n"
         "      --capture lean keeps what torch.profiler's CUDA-only mode keeps: kernels,\n"
         "      copies, memsets, the runtime API calls and NVTX ranges; no driver\n"
         "      API calls, synchronization waits or device samples (--sample-ms brings them\n"
         "      back). The default keeps all of those (docs/benchmarks.md prices each)\n"
         "      --capture-range cudaProfilerApi traces only between the program's\n"
         "      cudaProfilerStart and cudaProfilerStop (torch.cuda.profiler.start/stop), every\n"
         "      such window, each stored as a 'capture range' range; nothing is stored\n"
         "      elsewhere (though CUPTI slows the program there too after the first window)\n"
         "      --gpu-metrics samples the GPU's performance monitors device-wide while it runs\n"
         "      (CUPTI PM sampling, 10 kHz: SM active, warps resident, tensor pipe, DRAM, L2,\n"
         "      PCIe, NVLink; see `gpu-metrics RUN`); not with --metrics\n"
         "      --pc-sampling samples each SM's warps every 2^N cycles (CUPTI PC sampling;\n"
         "      N from --pc-sampling-period, 5..31, 13 by default) for where kernels stall; see\n"
         "      `kernel RUN NAME`; not with --metrics",
         cmdRecord},
        {"pull", "pull H RUN [--remote-db FILE] [--remote-cli PATH] [--db FILE]",
         "copy run RUN of host H's store into the local store over ssh (a run bundle)", cmdPull},
        {"bundle", "bundle RUN [--db FILE] [-o FILE|-]",
         "write one run with everything it recorded as a run bundle file (standard output by\n"
         "      default); `import FILE` stores it elsewhere as a new run",
         cmdBundle},
        {"stats",
         "stats RUN [--percentiles 50,90,99] [--metrics ttft,tpot,itl,e2el] "
         "[--goodput ttft:MS,tpot:MS,e2el:MS] [--json] [--db FILE]",
         "TTFT, TPOT, ITL, E2E, throughput and goodput of a run (vLLM's definitions and names)",
         cmdStats},
        {"import", "import FILE [--label L] [--db FILE] [--progress line|json|none]",
         "store a vLLM `bench serve --save-result` JSON, a GuideLLM report, SGLang "
         "bench_serving results (JSONL), AIPerf's profile_export.jsonl, an nsys SQLite export, a "
         "PyTorch profiler trace or a "
         "run bundle as a run (a report or file of several benchmarks as a sweep group; a "
         "folder of traces, one per rank, as one run)",
         cmdImport},
        {"bench",
         "bench serve [--base-url URL | --host H --port P] [--endpoint PATH|URL] "
         "[--backend vllm|openai|openai-chat] [--model NAME] [--served-model-name NAME] [--dataset "
         "random|sharegpt:FILE|jsonl:FILE] [--num-prompts N] [--input-len I] [--output-len O] "
         "[--range-ratio R] "
         "[--request-rate R|inf] [--burstiness B] [--max-concurrency C] [--seed S] [--ignore-eos] "
         "[--temperature T] [--goodput ttft:MS,tpot:MS,e2el:MS] [--profile] [--request-timeout S] "
         "[--run-timeout S] [--http-client auto|socket|libcurl] [--label L] "
         "[--percentile-metrics ttft,tpot,itl,e2el] [--metric-percentiles 50,99] "
         "[--save-result [--result-dir D] [--result-filename F] [--append-result] "
         "[--metadata K=V ...]] [--num-warmups 0|1] [--ready-check-timeout-sec S] "
         "[--db FILE] [--sweep "
         "max-concurrency=C1,C2,...|request-rate=R1,R2,... [--gpus N] [--num-prompts N1,N2,...]] "
         "[--attach RUN | "
         "[--server-timeout S] [--stop-grace S] [--capture default|lean] [--sample-ms N] "
         "[--graph-trace node|graph] [--capture-range none|cudaProfilerApi] [--no-driver-api] "
         "[--all-apis] "
         "[--gpu-metrics [--gpu-metrics-set NAME,...] [--gpu-metrics-hz N]] "
         "[--pc-sampling [--pc-sampling-period N]] --server -- "
         "CMD ARGS...]",
         "load an OpenAI-compatible server as `vllm bench serve` does (its flag names, the\n"
         "      --random-* and --dataset-name/--dataset-path spellings too): a warm-up\n"
         "      request, then Poisson or gamma arrivals; each request's start and streamed\n"
         "      chunks stored as a run; --save-result writes vLLM's result JSON (vLLM's\n"
         "      file name unless --result-filename; per-request arrays always, as vLLM's\n"
         "      --save-detailed). The URL is vLLM's: --base-url or http://--host:--port\n"
         "      (127.0.0.1:8000) with --endpoint's path; --endpoint may be a whole URL.\n"
         "      Without --model the server's first listed model is used. A vLLM flag not\n"
         "      implemented here is refused, naming what to use instead. Exit 1\n"
         "      when a request failed (the run is stored as failed).\n"
         "      --server starts CMD under capture (it must listen where --endpoint points),\n"
         "      waits for /health or /v1/models, runs the load, stops it: one run, both sides;\n"
         "      --profile asks the server to profile the measured requests only (POST\n"
         "      /start_profile after the warm-up, /stop_profile at the end, as vLLM's bench;\n"
         "      with --capture-range cudaProfilerApi and a server that then calls\n"
         "      cudaProfilerStart/Stop, e.g. vLLM with --profiler-config\n"
         "      '{\"profiler\": \"cuda\"}', only they are traced);\n"
         "      --attach adds the load to a run `record` is recording; --sweep runs each value\n"
         "      as its own run (with --server, each under its own server), the runs one sweep\n"
         "      group (see `sweep`); --num-prompts N1,N2,... gives each point its own count",
         cmdBench},
        {"sweep", "sweep [GROUP|RUN] [--json] [--db FILE]",
         "the sweep groups `bench serve --sweep` stored, or one group's table: a point a row,\n"
         "      output tok/s, TTFT and TPOT p50/p99, goodput and where the targets stop being met",
         cmdSweep},
        {"outliers", "outliers RUN [--top N] [--json] [--db FILE]",
         "the slowest inter-token latencies of a served run (at or above p99) and where their\n"
         "      time went: engine steps that ran prefill, kernels and launch gaps inside\n"
         "      decode-only steps, host gap outside any step (a run of bench serve --server)",
         cmdOutliers},
        {"collectives",
         "collectives RUN [--window run|requests|range:NAME|FROM:TO] [--top N] [--json] [--db "
         "FILE]",
         "NCCL collectives across the ranks of a distributed run (torchrun, mpirun): per rank\n"
         "      its NCCL time and share, how often it arrived last and its mean wait; per\n"
         "      collective the arrival skew (mean, p50, p99, max); findings",
         cmdCollectives},
        {"gpu-metrics", "gpu-metrics RUN [--by run|kernel|range] [--top N] [--json] [--db FILE]",
         "the GPU performance-monitor samples of a run recorded with --gpu-metrics (SM\n"
         "      active, warps resident, tensor pipe, DRAM, L2, PCIe, NVLink): mean, p50, p99\n"
         "      and max over the whole run, per kernel name or per NVTX range name",
         cmdGpuMetrics},
        {"kernel", "kernel RUN NAME [--top N] [--json] [--db FILE]",
         "one kernel of a run (its CUPTI name, its short name, or part of its signature):\n"
         "      launches and time, and for a run recorded with --pc-sampling where its warps\n"
         "      stall: share of samples by stall reason, hottest source lines (-lineinfo) and\n"
         "      instructions",
         cmdKernel},
        {"steps", "steps RUN [--kind decode|mixed|prefill|other] [--top N] [--json] [--db FILE]",
         "a served run's engine steps by kind (decode-only, prefill beside decodes, prefill\n"
         "      only): step times, batch, tokens, GPU busy, and the kernels of each kind",
         cmdSteps},
        {"whatif",
         "whatif RUN [--faster NAME_OR_CLASS=N%|Nx ...] [--kernel-at-roof NAME_OR_CLASS ... "
         "[--counters-from RUN]] [--no-launch-gaps] [--untraced-graph-launches] "
         "[--graph-launch-us N] [--seed S] [--json] [--db FILE]",
         "TTFT, TPOT, ITL and throughput as they would be with some kernels faster or without\n"
         "      launch gaps, from a replay of the run's own timeline (streams, launching threads,\n"
         "      synchronizations). --faster takes a kernel class (matmul, attention, elementwise,\n"
         "      sampling, collective, copy, other) or part of a kernel name, and N% less time or "
         "N\n"
         "      times as fast; repeat it for several. --no-launch-gaps: as if each step were one\n"
         "      CUDA graph launch of --graph-launch-us (10 by default). --kernel-at-roof: the\n"
         "      kernels at their roofline floor, their work counted by the run's counters or by\n"
         "      --counters-from RUN (record --metrics roofline of the same program).\n"
         "      --untraced-graph-launches: each CUDA graph's first node --graph-launch-us after "
         "its\n"
         "      launch, as without --graph-trace node (whose wait per launch is the tracer's)",
         cmdWhatIf},
        {"summary",
         "summary RUN [--top N] [--window run|requests|range:NAME|FROM:TO] [--json] [--db FILE]",
         "kernels, memory copies and NVTX ranges by time, GPU busy/idle (as nsys stats)",
         cmdSummary},
        {"compare",
         "compare BASE RUN... [--top N] [--window requests|run|range:NAME|FROM:TO] [--json] [--db "
         "FILE]\n"
         "  compare BASE,BASE,... RUN,RUN,... [--series] [--resolve PCT] [--json] [--db FILE]",
         "latency metrics and kernels against a baseline, with 95% bootstrap intervals.\n"
         "      BASE,BASE,... and RUN,RUN,... are series of repeated runs: latency means with\n"
         "      intervals that resample runs, then requests in each run; the minimum detectable\n"
         "      effect (80% power); the runs needed to resolve the delta (or PCT % of the\n"
         "      baseline); and the pooled per-request interval, which ignores run-to-run\n"
         "      variance. --series grows a single RUN to its series: it and every ok run with\n"
         "      the same stored workload (name, kind, config text; else the command line),\n"
         "      variant, GPU (UUID) and capture.* settings",
         cmdCompare},
        {"roofline", "roofline RUN [--by kernel|range] [--json] [--db FILE]",
         "ceilings (measured or from the device table) and each kernel rung or decoder phase; "
         "--by range: a point per NVTX range its counted kernels were launched or captured in, "
         "with their occupancy",
         cmdRoofline},
        {"occupancy",
         "occupancy --cc 9.0 --threads N --regs R [--smem BYTES] [--carveout PCT] [--grid BLOCKS "
         "--sms N] "
         "[--json]",
         "theoretical occupancy and its limiter, by the CUDA occupancy calculator's rules",
         cmdOccupancy},
        {"validate", "validate CONFIG|FOLDER...",
         "check workload configs (a folder: its *.toml); errors name file:line:column",
         cmdValidate},
    };
    return list;
}

}  // namespace ws::cli
