#include "synthetic_runs.h"

#include <string>

#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"

namespace ws::testing {

namespace {

constexpr std::int64_t kStart = 1'764'770'400'000'000'000;  // 2025-12-03 14:00 UTC
constexpr std::int64_t kGpu0 = 9'000'000'000;

struct Kernel {
    const char* name;
    int block, regs, smem;
};

const Kernel kKernels[] = {
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     384, 168, 196608},
    {"ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn", 256, 232, 73728},
    {"attention_decode_splitkv", 128, 96, 32768},
    {"rmsnorm_fused_bf16", 512, 32, 0},
    {"gemv_bf16_splitk", 256, 64, 8192},
    {"silu_mul_bf16", 1024, 24, 0},
};

void writeRun(StoreWriter& w, int variant) {
    const std::uint32_t thread = 4242;
    std::uint32_t correlation = 100;
    // Prefill, then four decode steps; six kernels in each, a little slower per variant.
    std::int64_t t = kGpu0;
    auto kernels = [&](std::int64_t from, std::int64_t to) {
        std::int64_t step = (to - from) / 6;
        for (int k = 0; k < 6; ++k) {
            KernelRecord r;
            r.startNs = from + k * step;
            r.endNs = r.startNs + step * (6 - k) / 7 + 1'000 * variant;
            r.streamId = 7;
            r.contextId = 1;
            r.correlationId = correlation++;
            r.name = kKernels[k].name;
            r.gridX = 132;
            r.blockX = kKernels[k].block;
            r.registersPerThread = kKernels[k].regs;
            r.dynamicSharedBytes = kKernels[k].smem;
            w.add(r);
        }
    };
    const std::int64_t prefillNs = 2'400'000 + 150'000 * variant;
    const std::int64_t stepNs = 1'200'000 + 40'000 * variant;
    w.add(RangeRecord{t, t + prefillNs, thread, thread, "prefill", "warpscope", RangeKind::PushPop,
                      0, 0});
    kernels(t, t + prefillNs);
    t += prefillNs;
    for (int s = 0; s < 4; ++s) {
        w.add(RangeRecord{t, t + stepNs, thread, thread, "decode step " + std::to_string(s),
                          "warpscope", RangeKind::PushPop, 0, 0});
        kernels(t, t + stepNs);
        t += stepNs;
    }
    // A kernel rung declaring its work, as the kernel ladders do.
    w.add(RangeRecord{t, t + 600'000, thread, thread,
                      "gemv_bf16/splitk flops=33554432 bytes=" + std::to_string(33554432 + variant),
                      "warpscope", RangeKind::PushPop, 0, 0});
    kernels(t, t + 600'000);
    // Eight requests of 5 tokens, TTFT and TPOT spread a little.
    for (int r = 0; r < 8; ++r) {
        std::int64_t start = kGpu0 - 100'000 - r * 30'000;
        std::int64_t first = kGpu0 + prefillNs + r * 20'000;
        w.add(RequestRecord{r, start, first + 4 * stepNs, 512, 5, true});
        for (int k = 0; k < 5; ++k)
            w.add(TokenRecord{r, k, first + k * (stepNs + (r % 3) * 10'000)});
    }
}

}  // namespace

std::vector<RunId> writeSyntheticRuns(const std::string& path, int count) {
    Store store(path);
    std::vector<RunId> ids;
    const char* variants[] = {"optimized", "cuda-graphs", "cublas", "int8-weight-only"};
    for (int i = 0; i < count; ++i) {
        NewRun run;
        run.label = "llama-3.2-1b-instruct " + std::string(variants[i % 4]) + " batch " +
                    std::to_string(1 << (i / 4)) + " (repeat " + std::to_string(i + 1) + ")";
        run.workload = WorkloadInfo{"llama-3.2-1b-bf16", "decoder", "name = \"llama-3.2-1b\"\n"};
        run.device = fixtureDevice();
        run.variant = variants[i % 4];
        run.startedAtNs = kStart + i * 60'000'000'000LL;
        RunId id = store.beginRun(run);
        {
            StoreWriter w(store, id);
            writeRun(w, i);
            w.flush();
        }
        store.setProperty(id, "decoder.prefill_flops", std::to_string(1.27e12 * (1 + 0.05 * i)));
        store.setProperty(id, "decoder.decode_step_flops", "2.47e9");
        store.setProperty(id, "decoder.decode_step_bytes", "2.47e9");
        store.setProperty(id, "model.weight_bytes", "2.47e9");
        store.finishRun(id, RunStatus::Ok, 0, std::nullopt, run.startedAtNs + 3'000'000'000LL);
        ids.push_back(id);
    }
    return ids;
}

}  // namespace ws::testing
