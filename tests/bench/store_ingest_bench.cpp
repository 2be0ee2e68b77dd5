// BM_StoreIngestKernels: kernel records with every launch field through the
// batched writer into a fresh store on disk, reported as items_per_second.
// BM_StoreIngestLaunches: the mix a recording of a launch storm stores, per
// launch its kernel and two API calls (cudaLaunchKernel, cuKernelGetName),
// the records counted as items: the rate to hold against the capture's.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace {

void BM_StoreIngestKernels(benchmark::State& state) {
    const int records = static_cast<int>(state.range(0));
    // A realistic name mix: a decode step repeats a few dozen kernels.
    std::vector<std::string> names;
    for (int i = 0; i < 40; ++i)
        names.push_back("void gemv_bf16_splitk<" + std::to_string(i) +
                        ", 256>(const __nv_bfloat16*, const __nv_bfloat16*, float*, int, int)");
    for (auto _ : state) {
        state.PauseTiming();
        ws::testing::TempDir dir;
        auto store = std::make_unique<ws::Store>(dir.file("bench.wsdb"));
        auto run = store->beginRun({});
        state.ResumeTiming();
        {
            ws::StoreWriter writer(*store, run);
            ws::KernelRecord k;
            for (int i = 0; i < records; ++i) {
                k.startNs = 1'000'000 + std::int64_t(i) * 2'000;
                k.endNs = k.startNs + 1'500;
                k.streamId = static_cast<std::uint32_t>(7 + i % 8);
                k.correlationId = static_cast<std::uint32_t>(i);
                k.name = names[static_cast<std::size_t>(i) % names.size()];
                k.gridX = 132;
                k.blockX = 256;
                k.registersPerThread = 64;
                k.staticSharedBytes = 4096;
                k.dynamicSharedBytes = 16384;
                k.graphId = 1;
                k.graphNodeId = static_cast<std::uint64_t>(i);
                writer.add(k);
            }
            writer.flush();
        }
        state.PauseTiming();
        store.reset();
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * records);
}
BENCHMARK(BM_StoreIngestKernels)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_StoreIngestLaunches(benchmark::State& state) {
    const int launches = static_cast<int>(state.range(0));
    for (auto _ : state) {
        state.PauseTiming();
        ws::testing::TempDir dir;
        auto store = std::make_unique<ws::Store>(dir.file("bench.wsdb"));
        auto run = store->beginRun({});
        state.ResumeTiming();
        {
            ws::StoreWriter writer(*store, run);
            ws::KernelRecord k;
            k.name = "tiny_kernel(float*)";
            k.gridX = 1;
            k.blockX = 32;
            ws::ApiCallRecord launch, name;
            launch.name = "cudaLaunchKernel_v7000";
            name.name = "cuKernelGetName";
            name.kind = ws::ApiKind::Driver;
            for (int i = 0; i < launches; ++i) {
                const std::uint32_t thread = 100 + static_cast<std::uint32_t>(i % 16);
                const std::int64_t t = 1'000'000 + std::int64_t(i) * 2'000;
                name.startNs = t;
                name.endNs = t + 150;
                name.threadId = thread;
                name.correlationId = static_cast<std::uint32_t>(2 * i);
                writer.add(name);
                launch.startNs = t + 200;
                launch.endNs = t + 1'200;
                launch.threadId = thread;
                launch.correlationId = static_cast<std::uint32_t>(2 * i + 1);
                writer.add(launch);
                k.startNs = t + 1'500;
                k.endNs = k.startNs + 900;
                k.streamId = static_cast<std::uint32_t>(7 + i % 16);
                k.correlationId = launch.correlationId;
                writer.add(k);
            }
            writer.flush();
        }
        state.PauseTiming();
        store.reset();
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * launches * 3);
}
BENCHMARK(BM_StoreIngestLaunches)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
