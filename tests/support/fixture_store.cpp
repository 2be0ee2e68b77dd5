#include "support/fixture_store.h"
#include "store_db.h"

#include "store/store.h"
#include "store/store_writer.h"

namespace ws::testing {

namespace {
constexpr std::int64_t kStart = 1'764'684'000'000'000'000;  // 2025-12-02 14:00 UTC
constexpr std::int64_t kGpu0 = 5'000'000'000;               // CUPTI clock origin of the runs

void writeDecoderRecords(StoreWriter& w) {
    const char* names[] = {"rmsnorm_fused_bf16", "gemv_bf16_splitk", "attention_decode_splitkv",
                           "silu_mul_bf16"};
    // Stream 7 computes, stream 13 copies; kernels are 8 µs apart and 5 µs long.
    for (int s = 0; s < 2; ++s) {
        for (int i = 0; i < kFixtureKernelsPerStream; ++i) {
            KernelRecord k;
            k.startNs = kGpu0 + i * 8'000 + s * 2'000;
            k.endNs = k.startNs + 5'000 + (i % 4) * 100;
            k.streamId = s == 0 ? 7 : 13;
            k.contextId = 1;
            k.correlationId = static_cast<std::uint32_t>(1000 + s * 1000 + i);
            k.name = names[i % 4];
            k.gridX = 132 * (1 + i % 2);
            k.blockX = 256;
            k.registersPerThread = 32 + 8 * (i % 4);
            k.staticSharedBytes = 4096;
            k.dynamicSharedBytes = (i % 4 == 2) ? 49152 : 0;
            w.add(k);
        }
    }
    for (int i = 0; i < 6; ++i) {
        MemcpyRecord m;
        m.startNs = kGpu0 + i * 150'000;
        m.endNs = m.startNs + 40'000;
        m.streamId = 13;
        m.contextId = 1;
        m.correlationId = static_cast<std::uint32_t>(5000 + i);
        m.kind = i % 2 ? MemcpyKind::DtoH : MemcpyKind::HtoD;
        m.srcKind = i % 2 ? MemoryKind::Device : MemoryKind::Pinned;
        m.dstKind = i % 2 ? MemoryKind::Pinned : MemoryKind::Device;
        m.bytes = 16 << 20;
        w.add(m);
    }
    MemsetRecord ms;
    ms.startNs = kGpu0 - 20'000;
    ms.endNs = kGpu0 - 15'000;
    ms.streamId = 7;
    ms.bytes = 1 << 20;
    w.add(ms);
    RangeRecord prefill{kGpu0,       kGpu0 + 200'000,    4242,       4242, "prefill",
                        "warpscope", RangeKind::PushPop, 0xff4caf50, 0};
    w.add(prefill);
    for (int t = 0; t < 4; ++t) {
        RangeRecord step{kGpu0 + 200'000 + t * 160'000,
                         kGpu0 + 360'000 + t * 160'000,
                         4242,
                         4242,
                         "decode_step",
                         "warpscope",
                         RangeKind::PushPop,
                         0xff2196f3,
                         0};
        w.add(step);
        w.add(ApiCallRecord{step.startNs + 1'000, step.startNs + 4'000, 4242, 4242,
                            static_cast<std::uint32_t>(1000 + t), ApiKind::Runtime, 211,
                            "cudaLaunchKernel", 0});
    }
    // Two requests of 5 output tokens: TTFT 200 µs / 220 µs, 160 µs between tokens.
    for (int r = 0; r < 2; ++r) {
        std::int64_t start = kGpu0 - r * 20'000;
        w.add(RequestRecord{r, start, kGpu0 + 200'000 + 4 * 160'000, 128, 5, true});
        for (int t = 0; t < 5; ++t)
            w.add(TokenRecord{r, t, kGpu0 + 200'000 + t * 160'000});
    }
    for (int i = 0; i < 10; ++i) {
        SampleRecord s;
        s.timeNs = kGpu0 + i * 50'000'000LL;
        s.powerW = 310.0 + i * 12.5;
        s.smClockMhz = 1980;
        s.memClockMhz = 3201;
        s.temperatureC = 41 + i * 0.5;
        s.memoryUsedBytes = std::int64_t(6) << 30;
        s.gpuUtilPercent = 97;
        s.memUtilPercent = 64;
        s.energyJ = 1000.0 + i * 16.0;
        s.clockEventReasons = i >= 8 ? 0x4 : 0;  // SW power cap in the last two samples
        // One GPU: its NVLink counters read, but nothing crossed them.
        s.nvlinkTxBytes = std::int64_t(3) << 30;
        s.nvlinkRxBytes = std::int64_t(5) << 30;
        w.add(s);
    }
    w.add(QualityRecord{"greedy_tokens", "reference", 1.0, 0.0042, 0.02, true});
    w.add(OverheadRecord{kGpu0 + 900'000, kGpu0 + 905'000, "cupti_buffer_flush"});
}
}  // namespace

DeviceInfo fixtureDevice() {
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.uuid = "GPU-6b1f0c2e-0000-4a5b-9c1d-fixture00001";
    d.ccMajor = 9;
    d.ccMinor = 0;
    d.smCount = 132;
    d.memoryBytes = 150754820096;
    d.memoryBusWidthBits = 6144;
    d.memoryClockKhz = 3201000;
    d.smClockKhz = 1980000;
    d.l2Bytes = 62914560;
    d.driverVersion = "580.159.04";
    d.cudaVersion = "13.0";
    d.regsPerSm = 65536;
    d.regsPerBlock = 65536;
    d.smemPerSm = 233472;
    d.smemPerBlock = 49152;
    d.smemPerBlockOptin = 232448;
    d.reservedSmemPerBlock = 1024;
    d.maxWarpsPerSm = 64;
    d.maxBlocksPerSm = 32;
    d.maxThreadsPerBlock = 1024;
    return d;
}

FixtureRuns writeFixtureStore(const std::string& path) {
    Store store(path);
    FixtureRuns runs;

    NewRun decoder;
    decoder.label = "llama-3.2-1b optimized";
    decoder.workload = WorkloadInfo{"llama-3.2-1b-bf16", "decoder",
                                    "name = \"llama-3.2-1b-bf16\"\nkind = \"decoder\"\n"};
    decoder.device = fixtureDevice();
    decoder.variant = "optimized";
    decoder.tags = "baseline,bf16";
    decoder.command = "warpscope-cli run resources/workloads/llama-3.2-1b-bf16.toml";
    decoder.startedAtNs = kStart;
    runs.decoderOk = store.beginRun(decoder);
    {
        StoreWriter w(store, runs.decoderOk, 64);
        writeDecoderRecords(w);
        w.flush();
    }
    store.setProperty(runs.decoderOk, "kv_cache_bytes", "33554432");
    store.appendLog(runs.decoderOk, "prefill 128 tokens\ndecode 5 tokens\n");
    store.finishRun(runs.decoderOk, RunStatus::Ok, 0, std::nullopt, kStart + 2'500'000'000);

    NewRun kernel;
    kernel.label = "gemm wgmma 4096";
    kernel.workload = WorkloadInfo{"gemm-bf16-4096", "kernel", "name = \"gemm-bf16-4096\"\n"};
    kernel.device = fixtureDevice();
    kernel.variant = "wgmma";
    kernel.startedAtNs = kStart + 60'000'000'000;
    runs.kernelFailed = store.beginRun(kernel);
    {
        StoreWriter w(store, runs.kernelFailed);
        for (int i = 0; i < 3; ++i) {
            KernelRecord k;
            k.startNs = kGpu0 + i * 200'000;
            k.endNs = k.startNs + 180'000;
            k.streamId = 7;
            k.correlationId = static_cast<std::uint32_t>(10 + i);
            k.name = "gemm_bf16_wgmma_tma<128, 256, 64>";
            k.gridX = 16;
            k.gridY = 32;
            k.blockX = 384;
            k.clusterX = 2;
            k.clusterY = 1;
            k.clusterZ = 1;
            k.registersPerThread = 168;
            k.dynamicSharedBytes = 196608;
            w.add(k);
        }
    }
    store.appendLog(runs.kernelFailed, "verification failed: max rel error 3.1e-1 > 1e-2\n");
    store.finishRun(runs.kernelFailed, RunStatus::Failed, 3, std::nullopt, kStart + 61'200'000'000);

    NewRun command;
    command.label = "torch generate";
    command.workload = WorkloadInfo{"torch-llama-generate", "command", "program = \"python3\"\n"};
    command.command = "python3 generate.py --tokens 32";
    command.startedAtNs = kStart + 120'000'000'000;
    runs.commandKilled = store.beginRun(command);
    store.finishRun(runs.commandKilled, RunStatus::Killed, std::nullopt, 9,
                    kStart + 127'000'000'000);

    NewRun remote;
    remote.label = "long soak (remote)";
    remote.startedAtNs = kStart + 180'000'000'000;
    runs.remoteRunning = store.beginRun(remote);
    // Recorded elsewhere: its writer cannot be checked from this machine.
    sql::Statement st(storeDb(store),
                      "UPDATE runs SET host = 'gpu-node-7', writer_pid = 1 WHERE id = ?1");
    st.bind(1, runs.remoteRunning);
    st.exec();
    return runs;
}

}  // namespace ws::testing
