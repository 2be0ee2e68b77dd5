// `record --gpu-metrics` and `gpu-metrics RUN`: the options are checked
// before anything runs; where nothing can be sampled (no driver here) the
// program still runs and its run says why; a run holding samples reads back
// per kernel in the units a user reads, in text and JSON.
#include <map>
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/energy_run.h"

namespace ws {
namespace {

TEST(CliGpuMetrics, BadChoicesAreRefusedBeforeAnythingRuns) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"--gpu-metrics-hz", "5", "--gpu-metrics"},
                                               {"--gpu-metrics-hz", "1000"},
                                               {"--gpu-metrics-set", "SM Active"},
                                               {"--gpu-metrics", "--metrics", "dram"}}) {
        std::vector<std::string> argv = {"record", "--db", db};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.insert(argv.end(), {"--", "/bin/true"});
        auto r = cli(argv);
        EXPECT_EQ(r.exitCode, 2) << args.front() << ": " << r.err;
        EXPECT_NE(r.err.find("--gpu-metrics"), std::string::npos) << r.err;
    }
    auto bench = cli({"bench", "serve", "--gpu-metrics", "--db", db});
    EXPECT_EQ(bench.exitCode, 2);
    EXPECT_NE(bench.err.find("--gpu-metrics applies to --server"), std::string::npos) << bench.err;
    Store store(db);
    EXPECT_TRUE(listRuns(store).empty());
}

TEST(CliGpuMetrics, WithoutADriverTheProgramRunsAndItsRunSaysWhy) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    auto r = cli({"record", "--db", db, "--gpu-metrics", "--progress", "none", "--", "/bin/true"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    Store store(db);
    const auto log = runLog(store, 1);
    // Here either the module or the driver is missing; a GPU machine samples.
    if (log.find("sampling GPU metrics") != std::string::npos) GTEST_SKIP() << "a GPU samples here";
    EXPECT_NE(log.find("[warpscope] no GPU metrics: "), std::string::npos) << log;
    EXPECT_EQ(runProperties(store, 1)["capture.gpu_metrics_hz"], "10000");
    auto shown = cli({"gpu-metrics", "1", "--db", db});
    EXPECT_EQ(shown.exitCode, 0) << shown.err;
    EXPECT_NE(shown.out.find("has no GPU metric samples"), std::string::npos) << shown.out;
}

TEST(CliGpuMetrics, PerKernelMeansInTheUnitsAUserReads) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    {
        Store store(db);
        RunId run = store.beginRun({});
        StoreWriter w(store, run);
        GpuMetricSeries dram{0, "dram__bytes_read.sum.per_second", {}};
        GpuMetricSeries sm{0, "sm__cycles_active.avg.pct_of_peak_sustained_elapsed", {}};
        for (int i = 0; i < 20; ++i) {
            const std::int64_t t = 1'000'000'000 + i * 100'000LL;
            dram.samples.push_back({t, t + 100'000, i < 10 ? 3.0e12 : 0.5e12});
            sm.samples.push_back({t, t + 100'000, i < 10 ? 95.0 : 20.0});
        }
        w.add(dram);
        w.add(sm);
        KernelRecord k;
        k.name = "copyKernel";
        k.startNs = 1'000'000'000;
        k.endNs = 1'001'000'000;  // the first ten samples
        k.correlationId = 1;
        w.add(k);
        w.flush();
        store.finishRun(run, RunStatus::Ok);
    }
    auto text = cli({"gpu-metrics", "1", "--db", db, "--by", "kernel"});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("copyKernel (GPU 0, 1 launches, 1.00 ms)"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("3000.0"), std::string::npos) << text.out;  // GB/s
    EXPECT_NE(text.out.find("DRAM read (GB/s)"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("SM active (%)"), std::string::npos) << text.out;

    auto json = cli({"gpu-metrics", "1", "--db", db, "--json"});
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    EXPECT_EQ(j["by"], "run");
    EXPECT_EQ(j["sample_period_ns"], 100'000);
    const auto& metrics = j["groups"][0]["metrics"];
    ASSERT_EQ(metrics.size(), 2u);
    // The default set's order: SM active first, then DRAM read.
    EXPECT_EQ(metrics[0]["unit"], "%");
    EXPECT_DOUBLE_EQ(metrics[0]["mean"].get<double>(), 57.5);
    EXPECT_NEAR(metrics[1]["mean"].get<double>(), 1.75e12, 1e6);  // stored as float32

    // summary shows the whole window's means beside its kernels.
    auto summary = cli({"summary", "1", "--db", db});
    ASSERT_EQ(summary.exitCode, 0) << summary.err;
    EXPECT_NE(summary.out.find("GPU metrics over the window"), std::string::npos) << summary.out;
    EXPECT_NE(summary.out.find("1750.0 GB/s"), std::string::npos) << summary.out;
    auto summaryJson = nlohmann::json::parse(cli({"summary", "1", "--db", db, "--json"}).out);
    EXPECT_EQ(summaryJson["gpu_metrics"].size(), 2u);

    // The Chrome trace: a counter per metric in its units, back to 0 after.
    const auto trace = dir.file("trace.json");
    ASSERT_EQ(cli({"export", "1", "--db", db, "--format", "chrome-trace", "-o", trace}).exitCode,
              0);
    std::vector<double> dramValues;
    const auto events = nlohmann::json::parse(testing::readFile(trace))["traceEvents"];
    for (const auto& e : events)
        if (e["ph"] == "C" && e["name"] == "DRAM read (GB/s)")
            dramValues.push_back(e["args"]["value"].get<double>());
    ASSERT_EQ(dramValues.size(), 21u);
    EXPECT_NEAR(dramValues.front(), 3000, 1e-3);
    EXPECT_EQ(dramValues.back(), 0);

    auto bad = cli({"gpu-metrics", "1", "--db", db, "--by", "thread"});
    EXPECT_EQ(bad.exitCode, 2);
}

// A served run's steps: the GPU metrics of its prefill steps and its decode
// steps side by side (the prefill step 0-40 ms at 90 % tensor pipe, the
// decode step 40-100 ms at 10 %).
TEST(CliGpuMetrics, StepsShowEachStepKindsMetrics) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    {
        Store store(db);
        const RunId run = testing::writeEnergyRun(store);
        StoreWriter w(store, run);
        GpuMetricSeries tensor{
            0, "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", {}};
        for (int i = 0; i < 100; ++i)
            tensor.samples.push_back(
                {i * 1'000'000LL, (i + 1) * 1'000'000LL, i < 40 ? 90.0 : 10.0});
        w.add(tensor);
    }
    auto text = cli({"steps", "1", "--db", db});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("GPU metrics by step kind"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("Tensor pipe active (%)"), std::string::npos) << text.out;
    auto json = nlohmann::json::parse(cli({"steps", "1", "--db", db, "--json"}).out);
    std::map<std::string, double> byKind;
    for (const auto& k : json["kinds"])
        byKind[k["kind"].get<std::string>()] = k["gpu_metrics"][0]["mean"].get<double>();
    EXPECT_DOUBLE_EQ(byKind["prefill"], 90);
    EXPECT_DOUBLE_EQ(byKind["decode"], 10);
}

}  // namespace
}  // namespace ws
