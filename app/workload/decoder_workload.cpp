// The decoder workload: untimed warm-up requests first, then the contract's
// requests in rounds of `batch` prefilled together and decoded step by step,
// with a token mark per request per step (docs/token-conventions.md, so
// TTFT/TPOT/ITL follow), then the quality check against the reference
// variant by teacher forcing. With tensor_parallel = N, N processes (one per
// GPU) run the same rounds; rank 0 times, marks and prints, the others only
// compute their share.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>

#include "ceiling_marks.h"
#include "common/cuda_check.h"
#include "decoder/decoder.h"
#include "decoder/decoder_quality.h"
#include "host/bf16.h"
#include "nvtx_marks.h"
#include "workload_commands.h"
#if WARPSCOPE_HAVE_NCCL
#include "tensor_parallel_ranks.h"
#endif

namespace ws::workload {

using namespace ws::kernels;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::vector<int> promptTokens(std::uint64_t seed, int count, int vocab) {
    std::vector<int> ids(count);
    for (int i = 0; i < count; ++i)
        ids[i] = int(hashIndex(seed + 77, std::uint64_t(i)) % std::uint32_t(vocab));
    return ids;
}

std::int64_t deviceBytesInUse() {
    std::size_t free = 0, total = 0;
    WS_CUDA(cudaMemGetInfo(&free, &total));
    return std::int64_t(total - free);
}

}  // namespace

int runDecoderWorkload(const WorkloadConfig& config) {
    const auto& d = *config.decoder;
    const auto& c = config.contract;
    DecoderOptions opt;
    opt.shape = ModelShape::from(d);
    opt.precision = parsePrecision(d.precision);
    opt.variant = parseDecoderVariant(d.variant);
    opt.batch = c.batch;
    opt.maxPrefillTokens = c.promptTokens;
    opt.capacity = c.promptTokens + c.outputTokens;
    opt.seed = std::uint64_t(d.seed);
    opt.weightsPath = d.weights;
    opt.ropeTheta = float(d.ropeTheta);
    opt.rmsEps = float(d.rmsNormEps);
    bool quality =
        opt.variant != DecoderVariant::Reference || opt.precision != WeightPrecision::Bf16;
    int qualitySteps = std::min(16, c.outputTokens);
    opt.logitSlots = quality ? qualitySteps : 0;
    if (c.outputTokens < 1 || c.promptTokens < 1)
        throw std::invalid_argument(config.sourcePath +
                                    ": contract needs prompt_tokens and output_tokens >= 1");

#if WARPSCOPE_HAVE_NCCL
    std::optional<TensorParallelRanks> ranks;
    if (d.tensorParallel > 1) {
        ranks.emplace(d.tensorParallel, config.sourcePath);
        opt.rank = ranks->rank();
        opt.ranks = ranks->ranks();
        opt.allReduce = &ranks->allReduce();
    }
    const bool leader = !ranks || ranks->leader();
#else
    if (d.tensorParallel > 1)
        throw std::runtime_error(config.sourcePath +
                                 ": tensor_parallel needs NCCL's header (nccl.h) at build time; "
                                 "this build has none");
    const bool leader = true;
#endif

    cudaStream_t stream;
    WS_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const auto& m = opt.shape;
    if (leader)
        std::printf(
            "%s: %s, %.2fB parameters, %s, variant %s%s, batch %d, prompt %d, output %d%s\n",
            config.name.c_str(), d.model.c_str(), m.parameters() / 1e9, d.precision.c_str(),
            toString(opt.variant), d.cudaGraphs ? ", CUDA graphs" : "", opt.batch, c.promptTokens,
            c.outputTokens,
            opt.ranks > 1 ? (", tensor parallel " + std::to_string(opt.ranks)).c_str() : "");

    MeasuredCeilings ceilings;
    if (leader) ceilings = markMeasuredCeilings(stream);
    const double copyGBs = ceilings.copyGBs, tflops = ceilings.bf16Tflops;

    std::int64_t before = deviceBytesInUse();
    std::optional<Decoder> decoder;
    {
        NvtxRange range("load weights");
        decoder.emplace(opt, stream);
    }
    std::int64_t peak = deviceBytesInUse() - before;
    std::vector<int> prompts = promptTokens(opt.seed, opt.batch * c.promptTokens, m.vocab);

    // One round: the batch prefilled together, then decoded step by step.
    // `first` is the id of the round's first request; timed rounds mark
    // requests and tokens, warm-up rounds only run.
    std::vector<double> ttfts, steps;
    auto runRound = [&](std::optional<int> first) {
        std::vector<nvtxRangeId_t> requests(opt.batch);
        auto markTokens = [&] {
            if (first)
                for (int b = 0; b < opt.batch; ++b)
                    nvtxMarkA(("ws.token:" + std::to_string(*first + b)).c_str());
        };
        if (first)
            for (int b = 0; b < opt.batch; ++b)
                requests[b] = nvtxRangeStartA(("ws.request:" + std::to_string(*first + b) +
                                               ":prompt=" + std::to_string(c.promptTokens))
                                                  .c_str());
        auto start = Clock::now();
        {
            NvtxRange range("prefill");
            decoder->prefill(prompts, c.promptTokens);
            WS_CUDA(cudaStreamSynchronize(stream));
        }
        markTokens();
        if (first) ttfts.push_back(msSince(start));
        {
            NvtxRange range("decode");
            for (int step = 1; step < c.outputTokens; ++step) {
                // The first step runs eagerly (lazy one-time setup), then the graph
                // is captured; later rounds replay it from their first step.
                if (d.cudaGraphs && step == 2 && !decoder->graphCaptured())
                    decoder->captureDecodeGraph();
                auto t = Clock::now();
                NvtxRange stepRange("decode step " + std::to_string(step));
                decoder->decodeStep();
                WS_CUDA(cudaStreamSynchronize(stream));
                markTokens();
                if (first) steps.push_back(msSince(t));
            }
        }
        if (first)
            for (auto id : requests)
                nvtxRangeEnd(id);
    };
    const int timedRequests = c.requests > 0 ? c.requests : opt.batch;
    const int timedRounds = (timedRequests + opt.batch - 1) / opt.batch;
    const int warmupRounds = (c.warmupRequests + opt.batch - 1) / opt.batch;
    if (warmupRounds > 0) {
        NvtxRange range("warm-up (untimed)");
        for (int r = 0; r < warmupRounds; ++r)
            runRound(std::nullopt);
    }
    for (int r = 0; r < timedRounds; ++r)
        runRound(leader ? std::optional<int>(r * opt.batch) : std::nullopt);
    std::vector<std::string> rankFailures;
#if WARPSCOPE_HAVE_NCCL
    if (ranks) {
        decoder->releaseDecodeGraph();  // before the communicator it captured is freed
        rankFailures = ranks->finish();
    }
#endif
    if (!leader) {
        decoder.reset();
        WS_CUDA(cudaStreamDestroy(stream));
        return 0;
    }
    double ttftMs = 0;
    for (double t : ttfts)
        ttftMs += t / double(ttfts.size());
    peak = std::max(peak, deviceBytesInUse() - before);

    // What one GPU computes and reads: its share of the layers and KV cache,
    // the whole LM head; rates are set against one GPU's ceilings.
    const ModelShape perGpu = m.shard(opt.ranks);
    double tpotMs = 0;
    for (double s : steps)
        tpotMs += s / steps.size();
    double meanContext = c.promptTokens + c.outputTokens / 2.0;
    double floorMs = perGpu.decodeStepBytes(opt.precision, std::int64_t(meanContext), opt.batch) /
                     (copyGBs * 1e9) * 1e3;
    double prefillFlops =
        2.0 * double(m.layers * perGpu.layerMatrixElements()) * c.promptTokens * opt.batch;
    std::printf(
        "TTFT %.3f ms mean over %d requests after %d warm-up (prefill %.1f%% of cuBLAS "
        "bf16 peak %.0f TFLOP/s)\n",
        ttftMs, timedRounds * opt.batch, warmupRounds * opt.batch,
        100 * prefillFlops / (ttftMs * 1e-3) / (tflops * 1e12), tflops);
    if (!steps.empty())
        std::printf(
            "TPOT %.4f ms mean over %zu steps; floor %.4f ms at %.0f GB/s copy: floor/TPOT %.3f\n",
            tpotMs, steps.size(), floorMs, copyGBs, floorMs / tpotMs);
    std::printf("memory%s: weights %.2f GiB, KV cache %.3f GiB, device memory used %.2f GiB\n",
                opt.ranks > 1 ? " per GPU" : "", decoder->weightBytes() / 1073741824.0,
                decoder->kvCacheBytes() / 1073741824.0, peak / 1073741824.0);
    markProperty("model", d.model);
    markProperty("model.parameters", m.parameters());
    markProperty("model.weight_bytes", m.weightBytes(opt.precision));
    markProperty("kv_cache_bytes", decoder->kvCacheBytes());
    markProperty("peak_device_memory_bytes", peak);
    markProperty("decoder.variant", toString(opt.variant));
    markProperty("decoder.precision", d.precision);
    markProperty("decoder.cuda_graphs", d.cudaGraphs ? "yes" : "no");
    markProperty("decoder.tensor_parallel", opt.ranks);
    markProperty("decoder.warmup_requests", warmupRounds * opt.batch);
    markProperty("decoder.requests", timedRounds * opt.batch);
    markProperty("decoder.prefill_flops", prefillFlops);
    markProperty("decoder.decode_step_bytes",
                 perGpu.decodeStepBytes(opt.precision, std::int64_t(meanContext), opt.batch));
    markProperty("decoder.decode_step_flops",
                 perGpu.matmulFlops(opt.batch) +
                     4.0 * m.layers * perGpu.heads * m.headDim * meanContext * opt.batch);
    markProperty("decoder.tpot_floor_ms", floorMs);
    if (c.memoryBudgetGiB && peak > *c.memoryBudgetGiB * 1073741824.0)
        std::printf("memory budget %.2f GiB EXCEEDED by the %.2f GiB in use\n", *c.memoryBudgetGiB,
                    peak / 1073741824.0);

    if (quality) {
        auto tokens = decoder->generated(c.outputTokens);
        auto slots = decoder->logitSlots();
        std::vector<int> request0(qualitySteps);
        for (int s = 0; s < qualitySteps; ++s)
            request0[s] = tokens[std::size_t(s) * opt.batch];
        decoder.reset();  // free the candidate before the reference is built
        NvtxRange range("quality check (reference variant)");
        std::vector<int> prompt0(prompts.begin(), prompts.begin() + c.promptTokens);
        auto q =
            checkQuality(opt, prompt0, request0, slots, qualitySteps, d.qualityTolerance, stream);
        nvtxMarkA(qualityMark(q).c_str());
        std::printf(
            "quality vs %s: token agreement %.3f, max logit error %.4f (in logit std units; "
            "tolerance %.4f): %s\n",
            q.referenceVariant.c_str(), q.tokenAgreement, q.maxLogitError, q.tolerance,
            q.passed ? "passed" : "FAILED");
    }
    decoder.reset();
    WS_CUDA(cudaStreamDestroy(stream));
    for (const auto& failure : rankFailures)
        std::fprintf(stderr, "warpscope-workload: %s\n", failure.c_str());
    return rankFailures.empty() ? 0 : 1;
}

}  // namespace ws::workload
