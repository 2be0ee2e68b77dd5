// The replay against runs recorded on a GPU: the bundled H200 samples hold the
// 1B decoder in bf16 (run 11) and int8 weight-only (run 9), both CUDA graphs
// traced node by node in one session. Given the matmuls' measured speed-up
// (their GPU time while requests were served: 1.11x), the replay of run 11
// must land on run 9's own TPOT; docs/benchmarks.md holds the GPU table.
#include <gtest/gtest.h>

#include "analysis/latency.h"
#include "analysis/statistics.h"
#include "analysis/whatif.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

TEST(WhatIfRecordedPairs, Bf16ToInt8WithTheMatmulsMeasuredSpeedUpLandsOnTheInt8Run) {
    Store::Options readOnly;
    readOnly.readOnly = true;
    Store store(WARPSCOPE_SOURCE_DIR "/resources/samples/h200-captures.wsdb", readOnly);
    WhatIfScenario int8;
    int8.faster.push_back(parseKernelChange("matmul=1.11x"));
    const auto p = predictWhatIf(loadWhatIfRun(store, 11), int8, 200);
    const auto measured = computeLatency(requestsOf(store, 9), tokensOf(store, 9));
    const double measuredMean = stats::summarize(measured.tpotMs).mean;
    const double measuredP99 = stats::percentile(measured.tpotMs, 99);
    int checked = 0;
    for (const auto& v : p.values) {
        if (v.metric != "tpot") continue;
        if (v.statistic == "mean") {
            EXPECT_NEAR(v.predicted / measuredMean, 1.0, 0.03);
            ++checked;
        } else if (v.statistic == "p99") {
            EXPECT_NEAR(v.predicted / measuredP99, 1.0, 0.05);
            ++checked;
        }
    }
    EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace ws
