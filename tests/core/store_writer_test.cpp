// The writer's recording mode: a store locked by another process only delays
// writes, memory stays bounded, and one record kind the store rejects (or a
// value that is not a number) costs only those records.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "store/compact.h"
#include "store/recording_intent.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "store_db.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

// Another process's write transaction on the store, held until destroyed.
class ForeignLock {
  public:
    explicit ForeignLock(const std::string& path) {
        EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
        EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    }
    ~ForeignLock() {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(db_);
    }

  private:
    sqlite3* db_ = nullptr;
};

KernelRecord kernel(std::int64_t start) {
    KernelRecord k;
    k.startNs = start;
    k.endNs = start + 10;
    k.correlationId = static_cast<std::uint32_t>(start);
    k.name = "gemm";
    return k;
}

struct Fixture {
    TempDir dir;
    std::string path = dir.file("runs.wsdb");
    Store store{path};
    RunId run = store.beginRun({});
    // Every insert into `table` fails, as a store that rejects one kind does.
    void refuseInsertsInto(const std::string& table) {
        storeDb(store).exec("CREATE TRIGGER refuse BEFORE INSERT ON " + table +
                            " BEGIN SELECT RAISE(ABORT, 'injected rejection'); END");
    }
};

TEST(StoreWriterRecording, ALockedStoreOnlyDelaysWrites) {
    Fixture f;
    f.store.setBusyTimeout(20);
    StoreWriter writer(f.store, f.run, 100);
    writer.keepRecordsWhenBlocked(10'000);
    {
        ForeignLock lock(f.path);
        for (int i = 0; i < 1000; ++i)  // ten batches' worth: none may throw
            writer.add(kernel(i));
        EXPECT_TRUE(writer.blocked());
        EXPECT_FALSE(writer.tryFlush());
        EXPECT_EQ(writer.pending(), 1000u);
    }
    EXPECT_TRUE(writer.tryFlush());
    EXPECT_FALSE(writer.blocked());
    EXPECT_EQ(kernelsIn(f.store, f.run).size(), 1000u);
    EXPECT_EQ(writer.discarded(), 0);
}

TEST(StoreWriterRecording, WhileBlockedMemoryIsBoundedAndTheExcessCounted) {
    Fixture f;
    f.store.setBusyTimeout(20);
    StoreWriter writer(f.store, f.run, 100);
    writer.keepRecordsWhenBlocked(500);
    {
        ForeignLock lock(f.path);
        for (int i = 0; i < 2000; ++i)
            writer.add(kernel(i));
        EXPECT_EQ(writer.pending(), 500u);
    }
    EXPECT_TRUE(writer.tryFlush());
    EXPECT_EQ(kernelsIn(f.store, f.run).size(), 500u);
    EXPECT_EQ(writer.discarded(), 1500);
}

TEST(StoreWriterRecording, AKindTheStoreRejectsCostsOnlyThatKind) {
    Fixture f;
    f.refuseInsertsInto("overheads");
    StoreWriter writer(f.store, f.run);
    writer.keepRecordsWhenBlocked(10'000);
    writer.add(kernel(1));
    writer.add(OverheadRecord{0, 5, "flush"});
    EXPECT_TRUE(writer.tryFlush());
    EXPECT_EQ(kernelsIn(f.store, f.run).size(), 1u);
    EXPECT_EQ(writer.discarded(), 1);
    auto problems = writer.takeProblems();
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("1 overhead records not stored"), std::string::npos) << problems[0];
    EXPECT_NE(problems[0].find("injected rejection"), std::string::npos) << problems[0];
    writer.add(kernel(2));  // the string cache survived the rolled-back savepoint
    EXPECT_TRUE(writer.tryFlush());
    EXPECT_EQ(kernelsIn(f.store, f.run).size(), 2u);
}

TEST(StoreWriterRecording, AStringOfARejectedKindIsStoredAgainWhenUsedLater) {
    Fixture f;
    f.refuseInsertsInto("kernel_metrics");
    StoreWriter writer(f.store, f.run);
    writer.keepRecordsWhenBlocked(10'000);
    writer.add(KernelMetricRecord{7, "fresh_name", 1.0});  // interned, then rolled back
    EXPECT_TRUE(writer.tryFlush());
    EXPECT_EQ(writer.discarded(), 1);
    KernelRecord k = kernel(1);
    k.name = "fresh_name";  // the writer's string cache must not hand out the lost id
    writer.add(k);
    EXPECT_TRUE(writer.tryFlush());
    auto kernels = kernelsIn(f.store, f.run);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].name, "fresh_name");
}

TEST(StoreWriter, ManyNamesAlikeButInTheMiddleAndLanesOutOfOrderReadBackExactly) {
    // Kernel names that share a long prefix and suffix collide in the intern
    // cache's slots; lanes arrive interleaved and out of order in a batch.
    Fixture f;
    std::vector<KernelRecord> written;
    {
        StoreWriter writer(f.store, f.run, 700);
        for (int i = 0; i < 5000; ++i) {
            KernelRecord k = kernel((i * 7919) % 5000 * 100);
            k.streamId = static_cast<std::uint32_t>(i % 5);
            k.name = "void at::native::elementwise_kernel<" + std::to_string(i % 300) +
                     ", at::native::AddFunctor<float>>(int, float*)";
            writer.add(k);
            written.push_back(k);
        }
    }
    for (std::uint32_t stream = 0; stream < 5; ++stream) {
        std::vector<KernelRecord> expected;
        for (const auto& k : written)
            if (k.streamId == stream) expected.push_back(k);
        std::stable_sort(expected.begin(), expected.end(),
                         [](const auto& a, const auto& b) { return a.startNs < b.startNs; });
        auto stored = kernelsIn(f.store, f.run, {}, stream);
        ASSERT_EQ(stored.size(), expected.size());
        for (std::size_t i = 0; i < stored.size(); ++i) {
            ASSERT_EQ(stored[i].startNs, expected[i].startNs) << "stream " << stream << " #" << i;
            ASSERT_EQ(stored[i].name, expected[i].name) << "stream " << stream << " #" << i;
        }
    }
    EXPECT_EQ(storeDb(f.store).queryInt("SELECT count(*) FROM strings"), 300);
}

TEST(StoreWriterRecording, OutsideRecordingModeAStoreErrorStillThrows) {
    Fixture f;
    f.store.setBusyTimeout(20);
    StoreWriter writer(f.store, f.run);
    writer.add(kernel(1));
    ForeignLock lock(f.path);
    EXPECT_THROW(writer.flush(), StoreError);
    EXPECT_EQ(writer.pending(), 1u);
}

TEST(StoreWriter, MetricAndQualityValuesThatAreNotNumbersAreNotStored) {
    // A NaN once violated NOT NULL at flush and abandoned the recording.
    Fixture f;
    StoreWriter writer(f.store, f.run);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    writer.add(KernelMetricRecord{7, "sm__throughput.avg.pct_of_peak_sustained_elapsed", nan});
    writer.add(KernelMetricRecord{7, "dram__bytes.sum", 1024.0});
    writer.add(KernelMetricRecord{7, "inf", std::numeric_limits<double>::infinity()});
    QualityRecord q;
    q.check = "greedy";
    q.tokenAgreement = nan;
    writer.add(q);
    writer.add(kernel(1));
    writer.flush();
    auto metrics = kernelMetricsOf(f.store, f.run);
    ASSERT_EQ(metrics.size(), 1u);
    EXPECT_EQ(metrics[0].metric, "dram__bytes.sum");
    EXPECT_TRUE(qualityOf(f.store, f.run).empty());
    EXPECT_EQ(kernelsIn(f.store, f.run).size(), 1u);
    EXPECT_EQ(writer.discarded(), 3);
}

TEST(StoreWriter, GraphNodesKeepTheirFull64BitIds) {
    // SQLite integers are signed; CUPTI's node ids are unsigned 64-bit.
    Fixture f;
    {
        StoreWriter writer(f.store, f.run);
        writer.add(GraphNodeRecord{0xffffffff00000001ull, 0, 4, 100, 101, 5000, 0});
        writer.add(GraphNodeRecord{12, 0xffffffff00000001ull, 5, 100, 101, 6000, 1});
    }
    auto nodes = graphNodesOf(f.store, f.run);
    ASSERT_EQ(nodes.size(), 2u);
    EXPECT_EQ(nodes[0].nodeId, 0xffffffff00000001ull);
    EXPECT_EQ(nodes[1].originalNodeId, 0xffffffff00000001ull);
    EXPECT_EQ(nodes[1].graphId, 5u);
    EXPECT_EQ(nodes[1].processId, 100u);
    EXPECT_EQ(nodes[1].threadId, 101u);
    EXPECT_EQ(nodes[1].timeNs, 6000);
    EXPECT_EQ(nodes[1].nodeType, 1);
    f.store.deleteRun(f.run);
    EXPECT_TRUE(graphNodesOf(f.store, f.run).empty());
}

TEST(StoreWriter, GpuStreamsKeepTheirProcess) {
    Fixture f;
    {
        StoreWriter writer(f.store, f.run);
        writer.add(GpuStreamRecord{0, 7, 100, 7});
        writer.add(GpuStreamRecord{0, (1u << 24) + 7, 200, 7});
    }
    auto streams = gpuStreamsOf(f.store, f.run);
    ASSERT_EQ(streams.size(), 2u);
    EXPECT_EQ(streams[1].streamId, (1u << 24) + 7);
    EXPECT_EQ(streams[1].processId, 200u);
    EXPECT_EQ(streams[1].cudaStreamId, 7u);
}

TEST(StoreCompactYields, VacuumIsSkippedWhileARecordingAnnouncesItself) {
    Fixture f;
    f.store.finishRun(f.run, RunStatus::Ok);
    {
        StoreWriter writer(f.store, f.run);
        for (int i = 0; i < 100; ++i)
            writer.add(kernel(i));
    }
    RecordingIntent recording(f.path);
    EXPECT_TRUE(recordingIntended(f.path));
    auto result = compactStore(f.store);
    EXPECT_NE(result.vacuumSkipped.find("recording"), std::string::npos) << result.vacuumSkipped;
    EXPECT_EQ(kernelsIn(f.store, f.run).size(), 100u);
}

TEST(StoreCompactYields, WithoutARecordingTheStoreIsVacuumed) {
    Fixture f;
    f.store.finishRun(f.run, RunStatus::Ok);
    EXPECT_FALSE(recordingIntended(f.path));
    { RecordingIntent ended(f.path); }
    EXPECT_FALSE(recordingIntended(f.path));
    EXPECT_FALSE(std::filesystem::exists(f.path + "-recording"));  // no trace left
    {
        RecordingIntent a(f.path);
        { RecordingIntent b(f.path); }
        EXPECT_TRUE(recordingIntended(f.path));  // b ended, a still records
    }
    EXPECT_FALSE(std::filesystem::exists(f.path + "-recording"));
    auto result = compactStore(f.store);
    EXPECT_EQ(result.vacuumSkipped, "");
}

}  // namespace
}  // namespace ws
