// Launching from the GUI: validation while typing, and a failing program.
#include <gtest/gtest.h>

#include <algorithm>

#include <QSignalSpy>
#include <QTest>

#include "launch/launch_panel.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws::ui {
namespace {

const char* kGood =
    "name = \"exit3\"\nkind = \"command\"\n[command]\nprogram = \"/bin/sh\"\n"
    "args = [\"-c\", \"echo starting; echo 'model.bin: no such file' >&2; exit 3\"]\n";

TEST(LaunchPanel, ListsBundledPresetsAndValidatesWhileTyping) {
    LaunchPanel panel;
    panel.setConfigText(kGood);
    EXPECT_TRUE(panel.canLaunch());
    EXPECT_TRUE(panel.validationText().startsWith("Valid")) << panel.validationText().toStdString();
    panel.setConfigText(
        "name = \"x\"\nkind = \"command\"\n[contract]\nbatch = 0\n[command]\nprogram = \"a\"\n");
    EXPECT_FALSE(panel.canLaunch());
    EXPECT_TRUE(panel.validationText().contains("contract.batch"))
        << panel.validationText().toStdString();
    EXPECT_TRUE(panel.validationText().contains("line 4"));
    // Decoder, kernel and serve presets launch too (through record --workload).
    panel.selectConfig(WARPSCOPE_SOURCE_DIR "/resources/workloads/llama-3.2-1b-bf16.toml");
    EXPECT_TRUE(panel.configText().contains("Llama-3.2-1B"));
    EXPECT_TRUE(panel.canLaunch());
    EXPECT_TRUE(panel.validationText().contains("built-in decoder workload"))
        << panel.validationText().toStdString();
    panel.selectConfig(WARPSCOPE_SOURCE_DIR "/resources/workloads/serve-cpu.toml");
    EXPECT_TRUE(panel.canLaunch());
    EXPECT_TRUE(panel.validationText().contains("a server"))
        << panel.validationText().toStdString();
}

// A panel that launches through this build's CLI into a fresh store.
struct PanelOnAStore {
    testing::TempDir dir;
    std::string db = dir.file("runs.wsdb");
    LaunchPanel panel;
    PanelOnAStore() {
        panel.setCliPath(WARPSCOPE_CLI_PATH);
        panel.setStorePath(QString::fromStdString(db));
    }
};

TEST(LaunchPanel, FailingProgramShowsTheFailureAndIsStored) {
    PanelOnAStore on;
    auto& panel = on.panel;
    const auto& db = on.db;
    panel.setConfigText(kGood);
    QSignalSpy finished(&panel, &LaunchPanel::runFinished);
    QSignalSpy log(&panel, &LaunchPanel::logOutput);
    panel.launch();
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_FALSE(finished.last().at(0).toBool());
    EXPECT_TRUE(panel.statusText().contains("failed, exit code 3"))
        << panel.statusText().toStdString();
    // The reason the program gave, not only its exit code.
    EXPECT_TRUE(panel.statusText().contains("model.bin: no such file"))
        << panel.statusText().toStdString();
    QString all;
    for (const auto& l : log)
        all += l.at(0).toString();
    EXPECT_TRUE(all.contains("starting"));
    Store store(db);
    auto runs = listRuns(store);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, RunStatus::Failed);
    EXPECT_EQ(runs[0].workload, "exit3");
}

// The capture options reach the recorder (the program sees what the collector
// would read) and are stored with the run.
TEST(LaunchPanel, CaptureOptionsReachTheRecorderAndTheRun) {
    PanelOnAStore on;
    auto& panel = on.panel;
    const auto& db = on.db;
    panel.setConfigText(
        "name = \"options\"\nkind = \"command\"\n[command]\nprogram = \"/bin/sh\"\nargs = "
        "[\"-c\", \"echo graphs=$WARPSCOPE_GRAPH_TRACE all=${WARPSCOPE_ALL_APIS:-0} "
        "range=${WARPSCOPE_CAPTURE_RANGE:-whole} driver=${WARPSCOPE_DRIVER_API:-1} "
        "off=${WARPSCOPE_KINDS_OFF:-none}\"]\n");
    QSignalSpy finished(&panel, &LaunchPanel::runFinished);
    QSignalSpy log(&panel, &LaunchPanel::logOutput);
    auto launchOnce = [&] {
        panel.launch();
        EXPECT_TRUE(finished.wait(30000));
        QString all;
        for (const auto& l : log)
            all += l.at(0).toString();
        log.clear();
        return all;
    };
    EXPECT_TRUE(launchOnce().contains("graphs=node all=0 range=whole driver=1 off=none"));
    panel.setCaptureOptions(
        {.graphTrace = "graph", .allApis = true, .profilerApiRange = true, .gpuMetrics = true});
    EXPECT_TRUE(launchOnce().contains("graphs=graph all=1 range=cudaProfilerApi"));
    // PC sampling excludes GPU metrics: ticking one unticks the other.
    panel.setCaptureOptions({.gpuMetrics = true, .pcSampling = true});
    EXPECT_TRUE(launchOnce().contains("graphs=node all=0 range=whole"));
    // Lean keeps no state-reading calls: every API call is unticked with it.
    panel.setCaptureOptions({.set = "lean", .allApis = true});
    EXPECT_TRUE(launchOnce().contains(
        "graphs=node all=0 range=whole driver=0 off=synchronization,overhead"));
    Store store(db);
    auto runs = listRuns(store);
    ASSERT_EQ(runs.size(), 4u);
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    auto second = runProperties(store, runs[1].id);
    EXPECT_EQ(second["capture.graph_trace"], "graph");
    EXPECT_EQ(second["capture.query_calls"], "traced");
    EXPECT_EQ(second["capture.range"], "cudaProfilerApi");
    EXPECT_EQ(second["capture.gpu_metrics"], "default");
    EXPECT_EQ(second.count("capture.pc_sampling"), 0u);
    auto third = runProperties(store, runs[2].id);
    EXPECT_EQ(third["capture.pc_sampling"], "2^13 cycles (default)");
    EXPECT_EQ(third.count("capture.gpu_metrics"), 0u);
    EXPECT_EQ(third["capture.set"], "default");
    auto fourth = runProperties(store, runs[3].id);
    EXPECT_EQ(fourth["capture.set"], "lean");
    EXPECT_EQ(fourth["capture.query_calls"], "left out");
    EXPECT_EQ(fourth["capture.sample_ms"], "0");
}

// The capture button sums up the choice in a few words; lean unticks and
// disables every API call, and the two samplers exclude each other.
TEST(LaunchPanel, TheCaptureButtonSumsUpTheChoiceAndKeepsItConsistent) {
    CaptureOptions options;
    EXPECT_EQ(options.summary(), "all records, graph kernels");
    options.setValue({.graphTrace = "graph", .allApis = true, .profilerApiRange = true});
    EXPECT_EQ(options.summary(), "all records, graph spans, every API call, profiler windows only");
    options.setValue({.set = "lean", .allApis = true, .gpuMetrics = true, .pcSampling = true});
    EXPECT_EQ(options.summary(), "lean, graph kernels");
    const auto c = options.value();
    EXPECT_FALSE(c.allApis);
    EXPECT_TRUE(c.pcSampling);
    EXPECT_FALSE(c.gpuMetrics);
    EXPECT_EQ(options.recordArguments(),
              (QStringList{"--capture", "lean", "--graph-trace", "node", "--pc-sampling"}));
}

TEST(LaunchPanel, CancelLeavesARunMarkedKilled) {
    PanelOnAStore on;
    auto& panel = on.panel;
    const auto& db = on.db;
    panel.setConfigText(
        "name = \"sleeper\"\nkind = \"command\"\n[command]\nprogram = \"/bin/sleep\"\nargs = "
        "[\"30\"]\n");
    QSignalSpy finished(&panel, &LaunchPanel::runFinished);
    QSignalSpy progressed(&panel, &LaunchPanel::progressed);
    panel.launch();
    // Cancel once the recorder reports progress (its run exists by then), not
    // after a fixed delay that a loaded machine may not honour.
    ASSERT_TRUE(progressed.wait(20000));
    EXPECT_TRUE(panel.running());
    panel.cancel();
    ASSERT_TRUE(finished.wait(20000));
    Store store(db);
    auto runs = listRuns(store);
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, RunStatus::Killed);
}

}  // namespace
}  // namespace ws::ui
