// Writes a run of N kernels on S streams (an hour of serving is ~180 M at
// 50 k/s) through the store's own writer, for the open-at-scale benchmark:
// decode-step-like kernels (40 names, 0.8-30 us, 0.2-4 us gaps per stream),
// seeded. With API_CALLS > 0 each kernel also gets its cudaLaunchKernel
// (same correlation id, on host thread 100 + stream) and API_CALLS - 1 more
// calls before it; with RANGE_EVERY > 0 every RANGE_EVERY launches of a
// thread sit in one NVTX range "step". Prints the ingest rate.
//   make_big_store OUT.wsdb KERNELS [STREAMS=16] [SEED=1] [API_CALLS=0] [RANGE_EVERY=0]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "store/store.h"
#include "store/store_writer.h"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: make_big_store OUT.wsdb KERNELS [STREAMS] [SEED] [API_CALLS] "
                     "[RANGE_EVERY]\n");
        return 2;
    }
    const std::int64_t kernels = std::atoll(argv[2]);
    const int streams = argc > 3 ? std::atoi(argv[3]) : 16;
    std::mt19937_64 random(argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1);
    const int apiCalls = argc > 5 ? std::atoi(argv[5]) : 0;
    const std::int64_t rangeEvery = argc > 6 ? std::atoll(argv[6]) : 0;
    std::vector<std::string> names;
    for (int i = 0; i < 40; ++i)
        names.push_back("void gemv_bf16_splitk<" + std::to_string(i) +
                        ", 256>(const __nv_bfloat16*, const __nv_bfloat16*, float*, int, int)");
    ws::Store store(argv[1]);
    ws::NewRun nr;
    nr.label = "synthetic " + std::to_string(kernels) + " kernels";
    auto run = store.beginRun(nr);
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::int64_t> clock(static_cast<std::size_t>(streams), 1'000'000'000);
    std::vector<std::int64_t> rangeStart(static_cast<std::size_t>(streams), 0);
    {
        ws::StoreWriter writer(store, run);
        ws::KernelRecord k;
        k.gridX = 132;
        k.blockX = 256;
        k.registersPerThread = 64;
        for (std::int64_t i = 0; i < kernels; ++i) {
            auto s = static_cast<std::size_t>(i % streams);
            clock[s] += 200 + static_cast<std::int64_t>(random() % 3'800);
            k.startNs = clock[s];
            k.endNs = k.startNs + 800 + static_cast<std::int64_t>(random() % 29'200);
            clock[s] = k.endNs;
            k.streamId = static_cast<std::uint32_t>(7 + s);
            k.correlationId = static_cast<std::uint32_t>(i);
            k.name = names[static_cast<std::size_t>(i / streams) % names.size()];
            writer.add(k);
            // Host calls in the 1 us before the kernel starts (a stream's
            // kernels start at least 1 us apart, so a thread's calls never
            // overlap): the launch first, then the others.
            const auto thread = static_cast<std::uint32_t>(100 + s);
            const std::int64_t launch = i / streams;  // this thread's launch index
            if (apiCalls > 0) {
                ws::ApiCallRecord a;
                a.processId = 1;
                a.threadId = thread;
                a.startNs = k.startNs - 1000;
                a.endNs = a.startNs + 300;
                a.correlationId = k.correlationId;
                a.name = "cudaLaunchKernel";
                writer.add(a);
                for (int c = 1; c < apiCalls; ++c) {
                    a.startNs = k.startNs - 1000 + 300 + (600 / apiCalls) * c - 100;
                    a.endNs = a.startNs + 50;
                    a.correlationId = 0;
                    a.name = "cudaStreamQuery";
                    a.returnValue = launch % 7 == 0 ? 600 : 0;  // cudaErrorNotReady
                    writer.add(a);
                    a.returnValue = 0;
                }
            }
            if (rangeEvery > 0 && launch % rangeEvery == 0) rangeStart[s] = k.startNs - 1000;
            if (rangeEvery > 0 &&
                (launch % rangeEvery == rangeEvery - 1 || i + streams >= kernels)) {
                ws::RangeRecord r;
                r.processId = 1;
                r.threadId = thread;
                r.startNs = rangeStart[s];
                r.endNs = k.startNs - 50;
                r.name = "step";
                writer.add(r);
            }
        }
        writer.flush();
    }
    std::int64_t last = 0;
    for (auto c : clock)
        last = std::max(last, c);
    store.setStartedAt(run, 1'000'000'000);
    store.finishRun(run, ws::RunStatus::Ok, 0, std::nullopt, last);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("run %lld: %lld kernels on %d streams in %.1f s (%.2f M records/s)\n",
                static_cast<long long>(run), static_cast<long long>(kernels), streams, seconds,
                kernels / seconds / 1e6);
    return 0;
}
