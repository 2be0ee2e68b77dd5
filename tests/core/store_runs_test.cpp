// Run life cycle, the batched writer and the read API.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/chunk_directory.h"
#include "store/run_edits.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "store_db.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

KernelRecord kernelAt(std::int64_t start, std::int64_t duration, std::uint32_t stream,
                      const std::string& name) {
    KernelRecord k;
    k.startNs = start;
    k.endNs = start + duration;
    k.streamId = stream;
    k.name = name;
    return k;
}

TEST(StoreRuns, LifeCycleRunningToOk) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    NewRun nr;
    nr.label = "first";
    nr.workload = WorkloadInfo{"w", "kernel", "name = \"w\""};
    nr.device = testing::fixtureDevice();
    auto id = store.beginRun(nr);
    auto run = requireRun(store, id);
    EXPECT_EQ(run.status, RunStatus::Running);
    EXPECT_EQ(run.workload, "w");
    EXPECT_EQ(run.device, "NVIDIA H200");
    EXPECT_FALSE(run.endedAtNs.has_value());
    store.finishRun(id, RunStatus::Ok, 0, std::nullopt, run.startedAtNs + 1500);
    run = requireRun(store, id);
    EXPECT_EQ(run.status, RunStatus::Ok);
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_EQ(run.durationNs(), 1500);
    auto device = runDevice(store, id);
    ASSERT_TRUE(device);
    EXPECT_EQ(device->smCount, 132);
    EXPECT_EQ(device->reservedSmemPerBlock, 1024);
    // The same device and workload are stored once.
    store.beginRun(nr);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM devices"), 1);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM workloads"), 1);
}

TEST(StoreRuns, RemovedRunIdsAreNeverHandedOutAgain) {
    // rm of the highest run once made the next recording take its id.
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto a = store.beginRun({});
    auto b = store.beginRun({});
    store.deleteRun(b);
    auto c = store.beginRun({});
    EXPECT_GT(c, b);
    store.deleteRun(c);
    store.deleteRun(a);  // a lower id does not lower the mark
    Store again(dir.file("runs.wsdb"));
    EXPECT_GT(again.beginRun({}), c);
}

TEST(StoreRuns, RenamedAndTaggedAfterRecording) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    NewRun nr;
    nr.label = "llama-3.2-1b-bf16";
    auto id = store.beginRun(nr);
    store.setLabel(id, "1B before the fused MLP");
    store.setTags(id, " baseline, h200,,baseline , nightly ");
    auto run = requireRun(store, id);
    EXPECT_EQ(run.label, "1B before the fused MLP");
    EXPECT_EQ(run.tags, "baseline,h200,nightly");
    store.setTags(id, "");
    EXPECT_EQ(requireRun(store, id).tags, "");
    EXPECT_THROW(store.setLabel(id + 1, "x"), StoreError);
    EXPECT_THROW(store.setTags(id + 1, "x"), StoreError);
}

TEST(StoreRuns, FinishingUnknownRunFails) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    EXPECT_THROW(store.finishRun(42, RunStatus::Ok), StoreError);
    EXPECT_THROW(requireRun(store, 42), StoreError);
}

TEST(StoreRuns, WriterRoundTripsEveryKernelField) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto id = store.beginRun({});
    KernelRecord k = kernelAt(100, 50, 3, "void gemm<128>(float*)");
    k.deviceId = 1;
    k.contextId = 2;
    k.correlationId = 77;
    k.gridX = 10, k.gridY = 11, k.gridZ = 12;
    k.blockX = 128, k.blockY = 2, k.blockZ = 1;
    k.clusterX = 2, k.clusterY = 1, k.clusterZ = 1;
    k.registersPerThread = 96;
    k.staticSharedBytes = 1024;
    k.dynamicSharedBytes = 65536;
    k.localBytesPerThread = 16;
    k.localBytesTotal = 1 << 20;
    k.sharedCarveoutBytes = 233472;
    k.graphId = 5;
    k.graphNodeId = 0x100000001ULL;
    {
        StoreWriter w(store, id);
        w.add(k);
        w.flush();
        EXPECT_EQ(w.written(), 1);
    }
    auto back = kernelsIn(store, id);
    ASSERT_EQ(back.size(), 1u);
    const auto& b = back[0];
    EXPECT_EQ(b.name, k.name);
    EXPECT_EQ(b.startNs, 100);
    EXPECT_EQ(b.endNs, 150);
    EXPECT_EQ(b.deviceId, 1u);
    EXPECT_EQ(b.contextId, 2u);
    EXPECT_EQ(b.correlationId, 77u);
    EXPECT_EQ(std::tie(b.gridX, b.gridY, b.gridZ), std::tie(k.gridX, k.gridY, k.gridZ));
    EXPECT_EQ(std::tie(b.blockX, b.blockY, b.blockZ), std::tie(k.blockX, k.blockY, k.blockZ));
    EXPECT_EQ(std::tie(b.clusterX, b.clusterY, b.clusterZ),
              std::tie(k.clusterX, k.clusterY, k.clusterZ));
    EXPECT_EQ(b.registersPerThread, 96);
    EXPECT_EQ(b.staticSharedBytes, 1024);
    EXPECT_EQ(b.dynamicSharedBytes, 65536);
    EXPECT_EQ(b.localBytesPerThread, 16);
    EXPECT_EQ(b.localBytesTotal, 1 << 20);
    EXPECT_EQ(b.sharedCarveoutBytes, 233472);
    EXPECT_EQ(b.graphId, 5u);
    EXPECT_EQ(b.graphNodeId, 0x100000001ULL);
}

TEST(StoreRuns, WriterBatchesAndInternsStrings) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto id = store.beginRun({});
    {
        StoreWriter w(store, id, 100);
        for (int i = 0; i < 1000; ++i)
            w.add(kernelAt(i * 10, 5, i % 2, i % 3 ? "a" : "b"));
        // 1000 records in batches of 100: all but nothing pending are written.
        EXPECT_EQ(w.written(), 1000);
        EXPECT_EQ(w.pending(), 0u);
    }
    EXPECT_EQ(runAggregates(store, id).kernelCount, 1000);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM strings"), 2);
    // Each batch of 100 holds two lanes (streams 0 and 1): two chunks per batch.
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM event_chunks"), 20);
}

TEST(StoreRuns, ChunkDirectoryDescribesEachLaneWithoutDecoding) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto id = store.beginRun({});
    {
        StoreWriter w(store, id, 100);
        for (int i = 0; i < 1000; ++i)
            w.add(kernelAt(i * 10, 5, i % 2, "k"));
    }
    auto lanes = chunkDirectory(store, id, codec::ChunkKind::Kernel);
    ASSERT_EQ(lanes.size(), 2u);  // streams 0 and 1
    EXPECT_EQ(lanes[0].laneId, 0u);
    EXPECT_EQ(lanes[1].laneId, 1u);
    std::int64_t events = 0, busy = 0;
    for (const auto& lane : lanes) {
        ASSERT_EQ(lane.chunks.size(), 10u);  // one per batch of 100
        for (std::size_t c = 1; c < lane.chunks.size(); ++c)
            EXPECT_LT(lane.chunks[c - 1].firstStartNs, lane.chunks[c].firstStartNs);
        for (const auto& c : lane.chunks) {
            events += c.count;
            busy += c.busyNs;
            EXPECT_GT(c.maxEndNs, c.firstStartNs);
        }
    }
    EXPECT_EQ(events, 1000);
    EXPECT_EQ(busy, 5000);
    EXPECT_EQ(lanes[1].chunks[0].firstStartNs, 10);
    EXPECT_EQ(lanes[1].chunks[0].maxEndNs, 995);  // kernel 99, the last odd one of the batch
    EXPECT_TRUE(chunkDirectory(store, id, codec::ChunkKind::ApiCall).empty());
}

TEST(StoreRuns, WindowQueryReturnsOverlappingRecordsPerStreamInStartOrder) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto id = store.beginRun({});
    {
        StoreWriter w(store, id);
        w.add(kernelAt(300, 100, 1, "late"));
        w.add(kernelAt(0, 250, 1, "long"));  // starts before the window, reaches into it
        w.add(kernelAt(100, 50, 1, "before"));
        w.add(kernelAt(500, 10, 1, "after"));
        w.add(kernelAt(210, 10, 2, "other-stream"));
    }
    auto in = kernelsIn(store, id, {200, 450}, 1u);
    ASSERT_EQ(in.size(), 2u);
    EXPECT_EQ(in[0].name, "long");
    EXPECT_EQ(in[1].name, "late");
    EXPECT_EQ(kernelsIn(store, id, {200, 450}).size(), 3u);
    auto streams = runStreams(store, id);
    ASSERT_EQ(streams.size(), 2u);
    EXPECT_EQ(streams[1].streamId, 2u);
}

TEST(StoreRuns, LaneWrittenAcrossFlushesOutOfOrderReadsBackSorted) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto id = store.beginRun({});
    {
        StoreWriter w(store, id, 3000);
        // 10000 kernels on one stream, written newest-first: chunks overlap in time.
        for (int i = 9999; i >= 0; --i)
            w.add(kernelAt(i * 100, 60, 4, "k" + std::to_string(i % 7)));
    }
    auto all = kernelsIn(store, id, {}, 4u);
    ASSERT_EQ(all.size(), 10000u);
    for (std::size_t i = 0; i < all.size(); ++i) {
        ASSERT_EQ(all[i].startNs, static_cast<std::int64_t>(i) * 100);
        ASSERT_EQ(all[i].name, "k" + std::to_string(i % 7));
    }
    auto a = runAggregates(store, id);
    EXPECT_EQ(a.kernelTimeNs, 10000 * 60);
    EXPECT_EQ(a.firstNs, 0);
    EXPECT_EQ(a.lastNs, 9999 * 100 + 60);
    EXPECT_EQ(kernelsIn(store, id, {250'000, 250'150}).size(), 2u);
}

TEST(StoreRuns, DamagedChunkGivesAStoreError) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto id = store.beginRun({});
    {
        StoreWriter w(store, id);
        w.add(kernelAt(0, 10, 1, "k"));
    }
    storeDb(store).exec("UPDATE event_chunks SET data = x'ff'");
    EXPECT_THROW(kernelsIn(store, id), StoreError);
}

TEST(StoreRuns, KernelMetricsAreReplacedOneByOneAndRequestIdsContinue) {
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    NewRun nr;
    nr.label = "m";
    auto id = store.beginRun(nr);
    EXPECT_EQ(nextRequestId(store, id), 0);
    {
        StoreWriter w(store, id);
        w.add(KernelMetricRecord{7, "dram__bytes_read.sum", 100});
        w.add(KernelMetricRecord{7, "sm__throughput", 50});
        RequestRecord r;
        r.requestId = 4;
        w.add(r);
    }
    replaceKernelMetrics(store, id,
                         {{7, "dram__bytes_read.sum", 250}, {8, "dram__bytes_read.sum", 3}});
    auto seven = kernelMetricsOf(store, id, 7);
    EXPECT_EQ(seven.size(), 2u);
    EXPECT_EQ(seven["dram__bytes_read.sum"], 250);  // replaced, not added beside
    EXPECT_EQ(seven["sm__throughput"], 50);         // the other metric kept
    EXPECT_EQ(kernelMetricsOf(store, id, 8)["dram__bytes_read.sum"], 3);
    EXPECT_EQ(nextRequestId(store, id), 5);
}

TEST(StoreRuns, FixtureAggregatesAndTables) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);
    Store store(path);
    auto a = runAggregates(store, runs.decoderOk);
    EXPECT_EQ(a.kernelCount, 2 * testing::kFixtureKernelsPerStream);
    EXPECT_EQ(a.memcpyCount, 6);
    EXPECT_EQ(a.memcpyBytes, 6 * (16 << 20));
    EXPECT_EQ(a.memsetCount, 1);
    EXPECT_EQ(a.rangeCount, 5);
    EXPECT_EQ(a.apiCallCount, 4);
    EXPECT_EQ(a.requestCount, 2);
    EXPECT_EQ(a.tokenCount, 10);
    EXPECT_EQ(a.sampleCount, 10);
    EXPECT_EQ(a.streamCount, 2);
    EXPECT_EQ(memcpysIn(store, runs.decoderOk)[1].kind, MemcpyKind::DtoH);
    EXPECT_EQ(rangesIn(store, runs.decoderOk)[0].name, "prefill");
    EXPECT_EQ(apiCallsIn(store, runs.decoderOk)[0].name, "cudaLaunchKernel");
    EXPECT_EQ(samplesOf(store, runs.decoderOk)[0].powerW, 310.0);
    EXPECT_EQ(samplesOf(store, runs.decoderOk)[0].nvlinkRxBytes, std::int64_t(5) << 30);
    EXPECT_TRUE(qualityOf(store, runs.decoderOk)[0].passed);
    EXPECT_EQ(runProperties(store, runs.decoderOk).at("kv_cache_bytes"), "33554432");
    EXPECT_EQ(requireRun(store, runs.kernelFailed).exitCode, 3);
    EXPECT_EQ(requireRun(store, runs.commandKilled).signal, 9);
}

TEST(StoreRuns, DeleteRemovesRecordsToo) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);
    Store store(path);
    store.deleteRun(runs.decoderOk);
    EXPECT_FALSE(findRun(store, runs.decoderOk));
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM event_chunks WHERE run_id = " +
                                      std::to_string(runs.decoderOk)),
              0);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM tokens"), 0);
    EXPECT_THROW(store.deleteRun(runs.decoderOk), StoreError);
}

TEST(StoreRuns, RunOfDeadWriterIsMarkedKilledOnNextOpenWithRecordsKept) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    { Store create(path); }
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // A recorder that wrote some kernels and then died without finishing.
        Store store(path);
        auto id = store.beginRun({});
        StoreWriter w(store, id);
        for (int i = 0; i < 10; ++i)
            w.add(kernelAt(i * 100, 50, 1, "k"));
        w.flush();
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    Store store(path);
    ASSERT_EQ(store.recoveredRuns().size(), 1u);
    auto run = requireRun(store, store.recoveredRuns()[0]);
    EXPECT_EQ(run.status, RunStatus::Killed);
    EXPECT_TRUE(run.endedAtNs.has_value());
    EXPECT_EQ(kernelsIn(store, run.id).size(), 10u);
    EXPECT_NE(runLog(store, run.id).find("ended without finishing"), std::string::npos);
}

TEST(StoreRuns, RunOfLiveWriterIsLeftRunning) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    Store writer(path);
    auto id = writer.beginRun({});
    Store reader(path);  // same process: the writer is alive
    EXPECT_TRUE(reader.recoveredRuns().empty());
    EXPECT_EQ(requireRun(reader, id).status, RunStatus::Running);
}

TEST(StoreRuns, DiskFullRollsBackBatchAndKeepsRecordsPending) {
    TempDir dir;
    auto path = dir.file("runs.wsdb");
    Store store(path);
    auto id = store.beginRun({});
    auto pages = storeDb(store).queryInt("PRAGMA page_count");
    // Cap the file a few pages above its size: SQLite then fails with SQLITE_FULL.
    storeDb(store).exec("PRAGMA max_page_count = " + std::to_string(pages + 2));
    StoreWriter w(store, id, 1 << 20);
    for (int i = 0; i < 20000; ++i)
        w.add(kernelAt(i, 1, 1, "kernel_" + std::to_string(i)));
    try {
        w.flush();
        FAIL() << "writing past max_page_count succeeded";
    } catch (const StoreError& e) {
        EXPECT_EQ(e.kind(), StoreError::Kind::DiskFull);
        EXPECT_NE(std::string(e.what()).find("disk full"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    }
    EXPECT_EQ(w.pending(), 20000u);
    EXPECT_EQ(runAggregates(store, id).kernelCount, 0);
    EXPECT_EQ(storeDb(store).queryInt("SELECT count(*) FROM strings"), 0);
    // Space comes back: the pending batch is written whole, strings included.
    storeDb(store).exec("PRAGMA max_page_count = 1000000");
    w.flush();
    EXPECT_EQ(runAggregates(store, id).kernelCount, 20000);
    EXPECT_EQ(kernelsIn(store, id, {5, 6})[0].name, "kernel_5");
}

}  // namespace
}  // namespace ws
