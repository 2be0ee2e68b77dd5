// BM_SummarizeRun: summarizeRun (one streaming pass, bounded memory) over a
// run of N kernels on 16 streams, each with its launch call and one more API
// call, every 40 launches of a thread in an NVTX range; items_per_second is
// kernels. With WARPSCOPE_BENCH_KEEP=DIR the stores are written as
// DIR/summary-N.wsdb and kept (run 1), to time `warpscope-cli summary 1 --db
// DIR/summary-N.wsdb` on them. BM_DurationsVector / BM_DurationsAccumulator:
// the per-name statistics the summary used to keep (every duration in a vector, sorted)
// against the streaming accumulator, on the same values.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "analysis/kernel_summary.h"
#include "analysis/statistics.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace {

struct BigRun {
    ws::testing::TempDir dir;
    std::unique_ptr<ws::Store> store;
    ws::RunId run = 0;

    explicit BigRun(std::int64_t kernels) {
        std::string path = dir.file("bench.wsdb");
        if (const char* keep = std::getenv("WARPSCOPE_BENCH_KEEP")) {
            path = (std::filesystem::path(keep) / ("summary-" + std::to_string(kernels) + ".wsdb"))
                       .string();
            std::filesystem::remove(path);
        }
        store = std::make_unique<ws::Store>(path);
        run = store->beginRun({});
        std::mt19937_64 random(1);
        constexpr int kStreams = 16;
        std::vector<std::int64_t> clock(kStreams, 1'000'000'000), rangeStart(kStreams, 0);
        ws::StoreWriter writer(*store, run);
        ws::KernelRecord k;
        for (std::int64_t i = 0; i < kernels; ++i) {
            const auto s = static_cast<std::size_t>(i % kStreams);
            const std::int64_t launch = i / kStreams;
            clock[s] += 200 + static_cast<std::int64_t>(random() % 3'800);
            k.startNs = clock[s];
            k.endNs = k.startNs + 800 + static_cast<std::int64_t>(random() % 29'200);
            clock[s] = k.endNs;
            k.streamId = static_cast<std::uint32_t>(7 + s);
            k.correlationId = static_cast<std::uint32_t>(i + 1);
            k.name = "void gemv<" + std::to_string(launch % 40) + ">(float*)";
            writer.add(k);
            const auto thread = static_cast<std::uint32_t>(100 + s);
            writer.add(ws::ApiCallRecord{k.startNs - 1000, k.startNs - 700, 1, thread,
                                         k.correlationId, ws::ApiKind::Runtime, 0,
                                         "cudaLaunchKernel", 0});
            writer.add(ws::ApiCallRecord{k.startNs - 500, k.startNs - 450, 1, thread, 0,
                                         ws::ApiKind::Runtime, 0, "cudaStreamQuery", 0});
            if (launch % 40 == 0) rangeStart[s] = k.startNs - 1000;
            if (launch % 40 == 39)
                writer.add(ws::RangeRecord{rangeStart[s], k.startNs - 50, 1, thread, "step", "",
                                           ws::RangeKind::PushPop, 0, 0});
        }
        writer.flush();
    }
};

void BM_SummarizeRun(benchmark::State& state) {
    BigRun big(state.range(0));
    for (auto _ : state) {
        auto s = ws::summarizeRun(*big.store, big.run);
        benchmark::DoNotOptimize(s.gpuBusyNs);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SummarizeRun)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

std::vector<std::int64_t> durationsOf(std::int64_t n) {
    std::mt19937_64 random(3);
    std::vector<std::int64_t> out(static_cast<std::size_t>(n));
    for (auto& v : out)
        v = 800 + static_cast<std::int64_t>(random() % 29'200);
    return out;
}

void BM_DurationsVector(benchmark::State& state) {
    const auto values = durationsOf(state.range(0));
    for (auto _ : state) {
        std::vector<double> all;
        for (auto v : values)
            all.push_back(static_cast<double>(v));
        benchmark::DoNotOptimize(ws::durations(all).medianNs);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DurationsVector)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DurationsAccumulator(benchmark::State& state) {
    const auto values = durationsOf(state.range(0));
    for (auto _ : state) {
        ws::stats::Accumulator acc;
        for (auto v : values)
            acc.add(v);
        benchmark::DoNotOptimize(ws::durations(acc).medianNs);
    }
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DurationsAccumulator)->Arg(10'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
