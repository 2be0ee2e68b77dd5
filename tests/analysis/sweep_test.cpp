// Sweep groups read back from run properties: the table, the contract line
// and the report's sweep section, on runs made from hand-written loads.
#include <gtest/gtest.h>

#include "analysis/sweep.h"
#include "record/serve_load.h"
#include "report/report_data.h"
#include "report/report_writer.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws::testing {
namespace {

// `n` requests of 11 tokens: the first after `ttftMs`, then one each `tpotMs`.
ServeLoadResult load(int n, double ttftMs, double tpotMs) {
    ServeLoadResult r;
    r.startedNs = 1'000'000'000;
    for (int i = 0; i < n; ++i) {
        ServeRequestResult q;
        q.id = i;
        q.startNs = r.startedNs + i * 1'000'000;
        for (int t = 0; t < 11; ++t)
            q.chunkNs.push_back(q.startNs + static_cast<std::int64_t>((ttftMs + t * tpotMs) * 1e6));
        q.outputTokens = 11;
        q.promptTokens = 5;
        q.usageReported = true;
        r.endedNs = std::max(r.endedNs, q.chunkNs.back());
        r.requests.push_back(std::move(q));
    }
    return r;
}

ServeLoadOptions options() {
    ServeLoadOptions o;
    o.endpoint = "http://127.0.0.1:1";
    o.model = "m";
    return o;
}

RunId point(Store& store, const std::string& group, int index, const std::string& value,
            double ttftMs, double tpotMs) {
    RunId run = storeServeRun(store, options(), load(4, ttftMs, tpotMs),
                              {"bench serve m max-concurrency=" + value, "cmd", "{}"});
    store.setProperty(run, "sweep.group", group);
    store.setProperty(run, "sweep.parameter", "max-concurrency");
    store.setProperty(run, "sweep.value", value);
    store.setProperty(run, "sweep.index", std::to_string(index));
    store.setProperty(run, "sweep.points", "3");
    store.setProperty(run, "sweep.gpus", "2");
    store.setProperty(run, "sweep.ttft_target_ms", "100");
    store.setProperty(run, "sweep.tpot_target_ms", "20");
    return run;
}

class SweepTableTest : public ::testing::Test {
  protected:
    TempDir dir_;
    Store store_{dir_.file("runs.wsdb")};
};

TEST_F(SweepTableTest, ReadsEachPointAndWhereTheTargetsStopBeingMet) {
    RunId lone = storeServeRun(store_, options(), load(2, 10, 10), {"", "cmd", "{}"});
    // Stored out of order: the index decides the order.
    RunId c4 = point(store_, "g1", 2, "4", 150, 30);  // misses both targets
    RunId c1 = point(store_, "g1", 0, "1", 50, 10);
    RunId c2 = point(store_, "g1", 1, "2", 80, 15);
    RunId other = point(store_, "g2", 0, "8", 500, 50);

    auto groups = listSweepGroups(store_);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].group, "g1");
    EXPECT_EQ(groups[0].runs, (std::vector<RunId>{c1, c2, c4}));
    EXPECT_EQ(groups[0].plannedPoints, 3);
    EXPECT_EQ(groups[0].label, "bench serve m");  // the first run's, its point left out
    // Today's bench serve leads with the point; a point labelled otherwise
    // (an import) names itself, so the group's name stands in.
    for (auto [run, value] : {std::pair{c1, "1"}, {c2, "2"}, {c4, "4"}})
        store_.setLabel(run, std::string("max-concurrency=") + value + " · bench serve m");
    EXPECT_EQ(listSweepGroups(store_)[0].label, "bench serve m");
    for (RunId run : {c1, c2, c4})
        store_.setLabel(run, "GuideLLM m synchronous");
    EXPECT_EQ(listSweepGroups(store_)[0].label, "g1");
    EXPECT_EQ(sweepGroupOf(store_, c2), "g1");
    EXPECT_FALSE(sweepGroupOf(store_, lone));
    EXPECT_EQ(findSweepGroup(store_, std::to_string(other))->group, "g2");
    EXPECT_FALSE(findSweepGroup(store_, std::to_string(lone)));
    EXPECT_FALSE(findSweepGroup(store_, "nope"));
    auto tables = sweepTablesOf(store_, {lone, other, c1, c2, other});
    ASSERT_EQ(tables.size(), 2u);  // each group once, in the order met
    EXPECT_EQ(tables[0].group.group, "g2");
    EXPECT_EQ(tables[1].points.size(), 3u);

    auto t = sweepTable(store_, groups[0]);
    ASSERT_EQ(t.points.size(), 3u);
    EXPECT_EQ(t.gpus, 2);
    EXPECT_EQ(*t.targets.ttftMs, 100);
    EXPECT_EQ(t.points[0].value, "1");
    EXPECT_EQ(t.points[0].completed, 4);
    EXPECT_NEAR(*t.points[0].ttftP50Ms, 50, 1e-6);
    EXPECT_NEAR(*t.points[1].tpotP99Ms, 15, 1e-6);
    EXPECT_NEAR(t.points[0].outputThroughputPerGpu, t.points[0].outputThroughput / 2, 1e-9);
    EXPECT_TRUE(*t.points[0].meetsTargets);
    EXPECT_TRUE(*t.points[1].meetsTargets);
    EXPECT_FALSE(*t.points[2].meetsTargets);
    EXPECT_EQ(sweepContractLine(t),
              "meets p99 TTFT \u2264 100 ms / p99 TPOT \u2264 20 ms up to concurrency 2; "
              "concurrency 4 misses: p99 TTFT 150 ms, p99 TPOT 30 ms");
    EXPECT_EQ(sweepContractLine(sweepTable(store_, groups[1])),
              "meets p99 TTFT \u2264 100 ms / p99 TPOT \u2264 20 ms at no point; concurrency 8 "
              "misses: p99 TTFT 500 ms, p99 TPOT 50 ms");
    // Fast enough but one request failed (a stream without text): said so.
    auto failing = t;
    failing.points[0].failed = 1;
    failing.points[0].meetsTargets = false;
    EXPECT_EQ(sweepContractLine(failing),
              "meets p99 TTFT \u2264 100 ms / p99 TPOT \u2264 20 ms at no point; concurrency 1 "
              "misses: 1 failed request");
    t.targets = {};
    EXPECT_EQ(sweepContractLine(t), "");
}

TEST_F(SweepTableTest, TheReportOfAPointCarriesItsSweep) {
    point(store_, "g1", 0, "1", 50, 10);
    RunId c2 = point(store_, "g1", 1, "2", 60, 12);
    auto d = buildReport(store_, c2);
    ASSERT_TRUE(d.sweep);
    EXPECT_EQ(d.sweep->points.size(), 2u);
    auto html = writeReport(d, ReportFormat::Html, [](const std::string& id) {
        return id == "pareto" ? std::string("pareto.png") : std::string();
    });
    EXPECT_NE(html.find("<h2>Sweep</h2>"), std::string::npos);
    EXPECT_NE(html.find("up to concurrency 2 (every point)"), std::string::npos) << html;
    EXPECT_NE(html.find("2 (this run)"), std::string::npos);
    EXPECT_NE(html.find("output tok/s per GPU"), std::string::npos);
    EXPECT_NE(html.find("src=\"pareto.png\""), std::string::npos);
    auto md = writeReport(d, ReportFormat::Markdown);
    EXPECT_NE(md.find("## Sweep"), std::string::npos);
    EXPECT_NE(md.find("| 1 | 1 | 4 | 0 |"), std::string::npos) << md;
    // A run outside any sweep has no sweep section.
    RunId lone = storeServeRun(store_, options(), load(2, 10, 10), {"", "cmd", "{}"});
    auto plain = buildReport(store_, lone);
    EXPECT_FALSE(plain.sweep);
    EXPECT_EQ(writeReport(plain, ReportFormat::Html).find("<h2>Sweep</h2>"), std::string::npos);
}

}  // namespace
}  // namespace ws::testing
