// The roofline set's DRAM bytes replaced by a one-pass rerun's, launch by
// launch, only when both recordings launched the same kernels.
#include "record/dram_pass.h"

#include <gtest/gtest.h>

#include <map>

#include "model/counter_metrics.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

struct Launch {
    std::string name;
    double read, write;
};

// A counter run: kernels launched 1 µs apart with correlation ids from
// `firstId`, each with DRAM bytes and one FLOP count; `uncounted` adds a
// kernel without counters (a graph launch) after the first.
RunId counterRun(Store& store, const std::vector<Launch>& launches, std::uint32_t firstId,
                 bool uncounted = false) {
    RunId run = store.beginRun({});
    StoreWriter w(store, run);
    std::uint32_t id = firstId;
    std::int64_t t = 1'000;
    for (std::size_t i = 0; i < launches.size(); ++i) {
        KernelRecord k;
        k.name = launches[i].name;
        k.correlationId = id;
        k.startNs = t;
        k.endNs = t + 500;
        w.add(k);
        w.add(KernelMetricRecord{id, counters::kDramRead, launches[i].read});
        w.add(KernelMetricRecord{id, counters::kDramWrite, launches[i].write});
        w.add(KernelMetricRecord{id, counters::kFfma, 1e6});
        id += 3;
        t += 1'000;
        if (uncounted && i == 0) {
            KernelRecord g = k;
            g.name = "graphKernel";
            g.correlationId = id++;
            g.startNs = t;
            g.endNs = t + 100;
            w.add(g);
            t += 1'000;
        }
    }
    w.flush();
    store.finishRun(run, RunStatus::Ok, 0);
    return run;
}

// correlation id → metric → value of a run
std::map<std::uint32_t, std::map<std::string, double>> metricsOf(Store& store, RunId run) {
    std::map<std::uint32_t, std::map<std::string, double>> out;
    for (const auto& m : kernelMetricsOf(store, run))
        out[m.correlationId][m.metric] = m.value;
    return out;
}

TEST(DramPass, SameLaunchesTakeTheOnePassBytes) {
    TempDir dir;
    Store target(dir.file("target.wsdb")), pass(dir.file("pass.wsdb"));
    RunId run = counterRun(target, {{"gemv", 9e7, 2.4e7}, {"gemm", 5e7, 5e7}, {"gemv", 9e7, 2.4e7}},
                           10, /*uncounted=*/true);
    RunId passRun =
        counterRun(pass, {{"gemv", 8.4e7, 1e4}, {"gemm", 3e7, 2.8e7}, {"gemv", 8.3e7, 2e4}}, 500);

    DramMerge merge = mergeDramBytes(target, run, pass, passRun);
    ASSERT_TRUE(merge.merged()) << merge.problem;
    EXPECT_EQ(merge.kernels, 3);
    auto m = metricsOf(target, run);
    ASSERT_EQ(m.size(), 3u);
    EXPECT_EQ(m[10][counters::kDramRead], 8.4e7);
    EXPECT_EQ(m[10][counters::kDramWrite], 1e4);
    EXPECT_EQ(m[14][counters::kDramWrite], 2.8e7);  // after the uncounted kernel (id 13)
    EXPECT_EQ(m[17][counters::kDramRead], 8.3e7);
    EXPECT_EQ(m[17][counters::kFfma], 1e6);  // other counters stay
    EXPECT_EQ(m[17].size(), 3u);             // replaced, not added
}

TEST(DramPass, OtherLaunchesChangeNothingAndSayWhere) {
    TempDir dir;
    Store target(dir.file("target.wsdb")), pass(dir.file("pass.wsdb"));
    RunId run = counterRun(target, {{"gemv", 9e7, 2.4e7}, {"gemm", 5e7, 5e7}}, 10);
    RunId renamed = counterRun(pass, {{"gemv", 8e7, 1e4}, {"softmax", 3e7, 2e7}}, 10);
    RunId shorter = counterRun(pass, {{"gemv", 8e7, 1e4}}, 10);

    DramMerge merge = mergeDramBytes(target, run, pass, renamed);
    EXPECT_FALSE(merge.merged());
    EXPECT_NE(merge.problem.find("launch 2 was gemm, then softmax"), std::string::npos)
        << merge.problem;
    merge = mergeDramBytes(target, run, pass, shorter);
    EXPECT_NE(merge.problem.find("2 counted kernels the first time and 1 the second"),
              std::string::npos)
        << merge.problem;
    EXPECT_EQ(metricsOf(target, run)[10][counters::kDramWrite], 2.4e7);
}

TEST(DramPass, RepeatedCorrelationIdsAreNotMatched) {
    TempDir dir;
    Store target(dir.file("target.wsdb")), pass(dir.file("pass.wsdb"));
    RunId run = target.beginRun({});
    {
        StoreWriter w(target, run);
        for (std::int64_t t : {1'000, 5'000}) {  // two processes, both starting at id 7
            KernelRecord k;
            k.name = "gemv";
            k.correlationId = 7;
            k.startNs = t;
            k.endNs = t + 10;
            w.add(k);
        }
        w.add(KernelMetricRecord{7, counters::kDramRead, 1});
        w.add(KernelMetricRecord{7, counters::kDramWrite, 1});
    }
    RunId passRun = counterRun(pass, {{"gemv", 2, 2}, {"gemv", 2, 2}}, 1);
    DramMerge merge = mergeDramBytes(target, run, pass, passRun);
    EXPECT_NE(merge.problem.find("share correlation ids"), std::string::npos) << merge.problem;
}

}  // namespace
}  // namespace ws
