// Decode step time of the GPU backend against its floor, by batch: for each
// batch size, a pure-decode step of that many sequences at a given context
// (each with its own blocks in the pool), run through GpuBackend::execute as
// the engine runs it (metadata copy, graph replay, tokens back, synchronize),
// timed on the host. Floor = (weights + the step's KV bytes) / the measured
// copy bandwidth, as the decoder workload's.
//   serving_step_bench CONFIG.toml [--context N] [--steps N] [--batches 1,2,4,...]
//                      [--linear tuned|decoder]
// CONFIG.toml: a serve (or decoder) workload with a [decoder] table.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "ceilings/ceilings.h"
#include "config/workload_config.h"
#include "serving/gpu_backend.h"

using namespace ws;
using namespace ws::serving;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: serving_step_bench CONFIG.toml [--context N] [--steps N] "
                     "[--batches 1,2,4] [--linear tuned|decoder]\n");
        return 2;
    }
    int context = 1152, steps = 40;
    std::string linear;  // empty: the config's serve.linear
    std::vector<int> batches = {1, 2, 4, 8, 16, 32, 64, 128};
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string a = argv[i], v = argv[i + 1];
        if (a == "--context") context = std::stoi(v);
        if (a == "--steps") steps = std::stoi(v);
        if (a == "--linear") linear = v;
        if (a == "--batches") {
            batches.clear();
            std::stringstream s(v);
            for (std::string part; std::getline(s, part, ',');)
                batches.push_back(std::stoi(part));
        }
    }
    auto loaded = loadWorkloadConfig(argv[1]);
    if (!loaded.ok() || !loaded.config->decoder) {
        std::fprintf(stderr, "%s: needs a valid config with a [decoder] table\n", argv[1]);
        return 2;
    }
    GpuBackendOptions o = GpuBackendOptions::from(*loaded.config->decoder);
    // As the server runs it (serve.linear), unless --linear says otherwise.
    o.tuneLinear =
        (linear.empty() && loaded.config->serve ? loaded.config->serve->linear : linear) == "tuned";
    const int largest = *std::max_element(batches.begin(), batches.end());
    EngineConfig c;
    c.maxNumSeqs = largest;
    c.maxNumBatchedTokens = std::max(2048, largest);
    // The served context limit (the decode split plan is made for it), else the bench's.
    c.maxModelLen = loaded.config->serve ? loaded.config->serve->maxModelLen : context + 16;
    if (context + 1 > c.maxModelLen) {
        std::fprintf(stderr, "--context %d: over the config's max_model_len %d\n", context,
                     c.maxModelLen);
        return 2;
    }
    c.numBlocks = largest * ((c.maxModelLen + c.blockSize - 1) / c.blockSize) + 1;

    cudaStream_t stream;
    cudaStreamCreate(&stream);
    const double copyGBs = kernels::measureCopyBandwidth(std::size_t(512) << 20, 10, stream).best();
    cudaStreamDestroy(stream);
    GpuBackend backend(o);
    backend.prepare(c);

    const auto& m = o.shape;
    std::printf("%s: context %d, copy bandwidth %.0f GB/s, %d graphs\n",
                loaded.config->name.c_str(), context, copyGBs, backend.graphsCaptured());
    for (const auto& note : backend.preparedNotes())
        std::printf("%s\n", note.c_str());
    std::printf("%6s %10s %10s %8s %12s %8s\n", "batch", "step ms", "floor ms", "floor/t",
                "tokens/s", "graph");
    const int blocksPerSeq = (context + 1 + c.blockSize - 1) / c.blockSize;
    for (int batch : batches) {
        StepPlan plan;
        for (int b = 0; b < batch; ++b) {
            ScheduledSeq s;
            s.seq = b;
            s.start = context;  // attends to context + 1 positions
            s.tokens = {65 + b % 26};
            s.sample = true;
            s.outputIndex = 1;
            for (int k = 0; k < blocksPerSeq; ++k)
                s.blocks.push_back(b * blocksPerSeq + k + 1);
            plan.seqs.push_back(std::move(s));
        }
        plan.stats.decodeSeqs = plan.stats.decodeTokens = batch;
        for (int w = 0; w < 3; ++w)
            backend.execute(plan);
        const auto graphsBefore = backend.graphSteps();
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < steps; ++i)
            backend.execute(plan);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count() /
            steps;
        const double floorMs =
            m.decodeStepBytes(o.precision, context + 1, batch) / (copyGBs * 1e9) * 1e3;
        std::printf("%6d %10.3f %10.3f %8.3f %12.0f %8s\n", batch, ms, floorMs, floorMs / ms,
                    batch / ms * 1e3, backend.graphSteps() - graphsBefore == steps ? "yes" : "no");
    }
    return 0;
}
