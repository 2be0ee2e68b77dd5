#include "kernel_workload.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "common/cuda_check.h"
#include "common/timing.h"
#include "nvtx_marks.h"

namespace ws::workload {

using namespace ws::kernels;

namespace {
constexpr double kGraphTimedBelowMs = 2.0;
}

const RungResult* LadderResult::find(const std::string& rung) const {
    for (const auto& r : rungs)
        if (r.rung == rung) return &r;
    return nullptr;
}

LadderResult runLadder(const std::string& kernel, const Shape& shape,
                       std::vector<std::string> rungs, int warmup, int iterations, bool annotate) {
    cudaStream_t stream = nullptr;
    WS_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    LadderResult out;
    out.kernel = kernel;
    {
        auto probe = makeLadderCase(kernel, shape, 1, 1);
        if (rungs.empty()) rungs = probe->rungs();
        double bytes = 0;
        for (const auto& r : rungs)
            bytes = std::max(bytes, probe->cost(r).bytes);
        out.baseline = probe->baseline();
        probe.reset();
        auto ladder = makeLadderCase(kernel, shape, copiesToDefeatL2(std::size_t(bytes)), 1);
        out.shape = ladderDefaultShape(kernel);
        for (const auto& [k, v] : shape)
            out.shape[k] = v;
        for (const auto& rung : rungs) {
            RungResult r;
            r.rung = rung;
            r.cost = ladder->cost(rung);
            {
                std::optional<NvtxRange> range;
                if (annotate) range.emplace("verify " + kernel + "/" + rung);
                r.agreement = ladder->verify(rung, stream);
            }
            r.verified = r.agreement.ok(ladder->tolerance(rung));
            std::optional<NvtxRange> range;
            if (annotate) {
                char name[256];
                std::snprintf(name, sizeof name, "%s/%s flops=%.0f bytes=%.0f", kernel.c_str(),
                              rung.c_str(), r.cost.flops, r.cost.bytes);
                range.emplace(name);
            }
            auto ms = timeLaunches([&](int i) { ladder->run(rung, i, stream); }, warmup, iterations,
                                   stream);
            r.medianMs = median(ms);
            r.minMs = *std::min_element(ms.begin(), ms.end());
            // Fast rungs only: a graph of the slow ones would take seconds.
            if (r.medianMs < kGraphTimedBelowMs)
                r.graphMs = timeGraphLaunches([&](int i) { ladder->run(rung, i, stream); },
                                              iterations, 5, stream);
            out.rungs.push_back(r);
        }
    }
    WS_CUDA(cudaStreamDestroy(stream));
    return out;
}

void printLadder(const LadderResult& r, double copyGBs) {
    std::printf("%s", r.kernel.c_str());
    for (const auto& [k, v] : r.shape)
        std::printf(" %s=%lld", k.c_str(), static_cast<long long>(v));
    std::printf("\n  %-11s %10s %10s %10s %9s %9s %8s %8s  %s\n", "rung", "median ms", "min ms",
                "graph ms", "TFLOP/s", "GB/s", "x copy", "x base", "verified (max scaled error)");
    const RungResult* base = r.baseline.empty() ? nullptr : r.find(r.baseline);
    for (const auto& x : r.rungs) {
        std::printf("  %-11s %10.4f %10.4f ", x.rung.c_str(), x.medianMs, x.minMs);
        if (x.graphMs > 0)
            std::printf("%10.4f", x.graphMs);
        else
            std::printf("%10s", "-");
        std::printf(" %9.2f %9.1f %8.3f ", x.tflops(), x.gbs(),
                    copyGBs > 0 ? x.gbs() / copyGBs : 0.0);
        if (base)
            std::printf("%8.3f", base->medianMs / x.medianMs);
        else
            std::printf("%8s", "-");
        std::printf("  %s (%.2e%s)\n", x.verified ? "ok" : "FAILED", x.agreement.maxScaledError,
                    x.agreement.nonFinite ? ", non-finite outputs" : "");
    }
}

int runKernelWorkload(const WorkloadConfig& config) {
    const auto& k = *config.kernel;
    std::vector<std::string> rungs;
    // One rung, several side by side ("mma_wide,wgmma,cublas"), or all of them.
    if (!k.rung.empty() && k.rung != "all")
        for (std::size_t start = 0; start <= k.rung.size();) {
            std::size_t end = std::min(k.rung.find(',', start), k.rung.size());
            if (end > start) rungs.push_back(k.rung.substr(start, end - start));
            start = end + 1;
        }
    auto result = runLadder(k.kernel, k.shape, rungs, k.warmup, k.iterations, true);
    printLadder(result, 0);
    int failed = 0;
    for (const auto& r : result.rungs) {
        markProperty("kernel." + r.rung + ".median_ms", r.medianMs);
        if (r.graphMs > 0) markProperty("kernel." + r.rung + ".graph_ms", r.graphMs);
        markProperty("kernel." + r.rung + ".flops", r.cost.flops);
        markProperty("kernel." + r.rung + ".bytes", r.cost.bytes);
        markProperty("kernel." + r.rung + ".verified", r.verified ? "yes" : "no");
        if (!r.verified) ++failed;
    }
    if (failed) std::cerr << "warpscope-workload: " << failed << " rung(s) failed verification\n";
    return failed ? 1 : 0;
}

}  // namespace ws::workload
