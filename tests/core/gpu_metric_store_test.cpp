// GPU performance-monitor samples in the store: what a recording writes comes
// back per (device, metric) in time order, a window reads only what overlaps
// it, a copied run keeps them, and a damaged blob is named, never misread.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "gpu_metric_blob.h"
#include "store/run_copy.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_error.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

constexpr const char* kSmActive = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed";
constexpr const char* kDramRead = "dram__bytes_read.sum.per_second";

// `n` back-to-back samples of 100 µs from `startNs`, value i * step.
GpuMetricSeries series(std::uint32_t device, const char* metric, std::int64_t startNs, int n,
                       double step) {
    GpuMetricSeries s{device, metric, {}};
    for (int i = 0; i < n; ++i)
        s.samples.push_back({startNs + i * 100'000LL, startNs + (i + 1) * 100'000LL, i * step});
    return s;
}

TEST(GpuMetricBlob, RoundTripsGapsDurationsAndValues) {
    std::vector<GpuMetricSample> in = {
        {1'000, 101'000, 12.5}, {101'000, 201'000, 99.75}, {250'000, 350'000, 3.35e12}};
    auto blob = gpu_metric_blob::encode(in);
    // Back to back, a 100 µs sample costs 8 bytes: a gap byte, three duration
    // bytes and the value; the 49 µs gap before the third costs two more.
    EXPECT_EQ(blob.size(), 3 * 8u + 2);
    auto out = gpu_metric_blob::decode(blob, 1'000, 3);
    ASSERT_EQ(out.size(), 3u);
    for (std::size_t i = 0; i < in.size(); ++i) {
        EXPECT_EQ(out[i].startNs, in[i].startNs);
        EXPECT_EQ(out[i].endNs, in[i].endNs);
        EXPECT_NEAR(out[i].value, in[i].value, in[i].value * 1e-7);
    }
    EXPECT_THROW(gpu_metric_blob::decode(blob, 1'000, 4), std::runtime_error);
    EXPECT_THROW(gpu_metric_blob::decode(blob.substr(0, blob.size() - 1), 1'000, 3),
                 std::runtime_error);
    EXPECT_THROW(gpu_metric_blob::decode(blob + "x", 1'000, 3), std::runtime_error);
    EXPECT_THROW(gpu_metric_blob::decode(blob, 1'000, -1), std::runtime_error);
}

TEST(GpuMetricStore, SeriesComeBackPerDeviceAndMetricInTimeOrder) {
    TempDir dir;
    Store store(dir.file("m.wsdb"));
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        // Arrives as a sampler decodes: in pieces, the later piece first.
        w.add(series(0, kSmActive, 1'000'000'000 + 5'000 * 100'000LL, 5'000, 0.01));
        w.add(series(0, kSmActive, 1'000'000'000, 5'000, 0.01));
        w.add(series(1, kSmActive, 1'000'000'000, 10, 1));
        w.add(series(0, kDramRead, 1'000'000'000, 10, 1e9));
        // Not kept: ends before it starts, and starts before the clock's origin.
        w.add(GpuMetricSeries{0, kDramRead, {{2'000'000'000, 1'999'000'000, 1}, {-5, 10, 1}}});
        EXPECT_EQ(w.discarded(), 2);
    }
    auto all = gpuMetricsOf(store, run);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].deviceIndex, 0u);
    EXPECT_EQ(all[0].metric, kDramRead);
    EXPECT_EQ(all[0].samples.size(), 10u);
    EXPECT_EQ(all[1].metric, kSmActive);
    ASSERT_EQ(all[1].samples.size(), 10'000u);  // three chunks of at most 4096
    for (std::size_t i = 1; i < all[1].samples.size(); ++i)
        ASSERT_EQ(all[1].samples[i].startNs, all[1].samples[i - 1].endNs) << i;
    EXPECT_EQ(all[2].deviceIndex, 1u);

    // 1 ms from 1.25 s: the ten samples inside it on each series of device 0
    // that covers it, and none of a series that ended before.
    auto window = gpuMetricsOf(store, run, 1'250'000'000, 1'251'000'000);
    ASSERT_EQ(window.size(), 1u);
    EXPECT_EQ(window[0].metric, kSmActive);
    ASSERT_EQ(window[0].samples.size(), 10u);
    EXPECT_EQ(window[0].samples.front().startNs, 1'250'000'000);
    EXPECT_NEAR(window[0].samples.front().value, 2'500 * 0.01, 1e-4);
}

TEST(GpuMetricStore, ACopiedRunKeepsItsSamples) {
    TempDir dir;
    RunId run = 0;
    {
        Store from(dir.file("from.wsdb"));
        run = from.beginRun({});
        StoreWriter w(from, run);
        w.add(series(0, kSmActive, 1'000'000'000, 100, 1));
        w.flush();
        from.finishRun(run, RunStatus::Ok);
    }
    Store to(dir.file("to.wsdb"));
    RunId copied = copyRun(dir.file("from.wsdb"), run, to);
    auto all = gpuMetricsOf(to, copied);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].samples.size(), 100u);
    EXPECT_DOUBLE_EQ(all[0].samples.back().value, 99);
}

TEST(GpuMetricStore, ADamagedChunkIsNamedNotMisread) {
    TempDir dir;
    auto path = dir.file("d.wsdb");
    RunId run = 0;
    {
        Store store(path);
        run = store.beginRun({});
        StoreWriter w(store, run);
        w.add(series(0, kSmActive, 1'000'000'000, 100, 1));
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(db, "UPDATE gpu_metric_chunks SET count = 101", nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(db);
    Store store(path);
    try {
        gpuMetricsOf(store, run);
        FAIL() << "a chunk that claims 101 samples for 100 was read";
    } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find(kSmActive), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace ws
