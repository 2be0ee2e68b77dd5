// The GUI, the report and the CLI read one analysis: what the charts'
// comparison shows for two runs equals `warpscope-cli compare --json` on the
// same runs, value for value (same resamples, same seed, same windows).
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/run_analysis.h"
#include "support/run_process.h"
#include "support/temp_dir.h"
#include "viewmodels/store_loader.h"

namespace ws::ui {
namespace {

std::optional<double> optional(const nlohmann::json& j) {
    if (j.is_null()) return std::nullopt;
    return j.get<double>();
}

TEST(OneAnalysis, TheGuisComparisonEqualsCompareJsonValueForValue) {
    testing::TempDir dir;
    // Runs 1 and 2 of the sample store: torch generate at batch 1 and 4, with
    // requests, tokens and kernels in common.
    auto db = dir.file("samples.wsdb");
    std::filesystem::copy_file(WARPSCOPE_SOURCE_DIR "/resources/samples/h200-captures.wsdb", db);

    StoreLoader loader;
    QSignalSpy loaded(&loader, &StoreLoader::analysisLoaded);
    loader.loadAnalysis(QString::fromStdString(db), {1, 2});
    ASSERT_TRUE(loaded.wait(120000));
    auto runs = loaded.at(0).at(0).value<std::vector<RunAnalysis>>();
    ASSERT_EQ(runs.size(), 2u);
    ASSERT_TRUE(runs[1].againstFirst);
    const Comparison& gui = *runs[1].againstFirst;

    auto r = testing::runProcess({WARPSCOPE_CLI_PATH, "compare", "1", "2", "--json", "--db", db});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto cli = nlohmann::json::parse(r.out).at(0);

    ASSERT_EQ(cli["latency"].size(), gui.latency.size());
    int withInterval = 0;
    for (std::size_t i = 0; i < gui.latency.size(); ++i) {
        const auto& g = gui.latency[i];
        const auto& c = cli["latency"][i];
        SCOPED_TRACE(g.metric);
        EXPECT_EQ(c["metric"], g.metric);
        EXPECT_EQ(c["base"].get<double>(), g.base);
        EXPECT_EQ(c["candidate"].get<double>(), g.candidate);
        EXPECT_EQ(optional(c["ci95_low"]), g.ciLow);
        EXPECT_EQ(optional(c["ci95_high"]), g.ciHigh);
        EXPECT_EQ(c["verdict"], toString(g.verdict));
        withInterval += g.ciLow.has_value();
    }
    ASSERT_EQ(cli["kernels"].size(), gui.kernels.size());
    for (std::size_t i = 0; i < gui.kernels.size(); ++i) {
        const auto& g = gui.kernels[i];
        const auto& c = cli["kernels"][i];
        SCOPED_TRACE(g.name);
        EXPECT_EQ(c["name"], g.name);
        EXPECT_EQ(c["launches"]["base"].get<std::int64_t>(), g.baseLaunches);
        EXPECT_EQ(c["per_launch_ns"]["base"].get<double>(), g.baseMeanNs);
        EXPECT_EQ(c["per_launch_ns"]["candidate"].get<double>(), g.candidateMeanNs);
        EXPECT_EQ(optional(c["per_launch_ns"]["ci95_low"]), g.ciLow);
        EXPECT_EQ(optional(c["per_launch_ns"]["ci95_high"]), g.ciHigh);
        EXPECT_EQ(c["per_launch_ns"]["verdict"], toString(g.perLaunchVerdict));
        EXPECT_EQ(optional(c["total_ns"]["ci95_low"]), g.totalCiLow);
        EXPECT_EQ(c["total_ns"]["verdict"], toString(g.totalVerdict));
        withInterval += g.ciLow.has_value();
    }
    // Bootstrap intervals were compared, not only empty ones.
    EXPECT_GT(withInterval, 3);
}

}  // namespace
}  // namespace ws::ui
