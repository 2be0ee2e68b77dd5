// Range lanes: a thread's NVTX ranges per nesting depth; process-wide ranges
// (thread 0) per domain, so CUDA's waits and a recording's capture windows
// (record --capture-range) each get a lane of their own.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "store/store.h"
#include "store/store_writer.h"
#include "support/served_run.h"
#include "support/temp_dir.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui {
namespace {

RangeRecord range(std::uint32_t thread, int depth, const char* domain, const char* name,
                  std::int64_t start, std::int64_t end) {
    RangeRecord r;
    r.startNs = start;
    r.endNs = end;
    r.threadId = thread;
    r.depth = depth;
    r.domain = domain;
    r.name = name;
    r.kind = thread ? RangeKind::PushPop : RangeKind::StartEnd;
    return r;
}

// A server that declares its step costs gets a track of each engine step's
// SOL %, held over the step, on a 0-100 scale (served_run.h: a decode step's
// floor is 440.4 µs of its 1 ms, the mixed step's 532.7 µs of its 9 ms).
TEST(TimelineRangeLanes, EngineStepsGetASpeedOfLightTrack) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    const RunId plain = testing::writeServedRun(db);
    const RunId declared = testing::writeServedRun(db, true);
    Store store(db);
    auto without = loadTimeline(store, plain);
    ASSERT_TRUE(without);
    for (const auto& track : without->counters)
        EXPECT_NE(track.title, QStringLiteral("Engine step SOL (%)"));
    auto data = loadTimeline(store, declared);
    ASSERT_TRUE(data);
    const CounterTrack* sol = nullptr;
    for (const auto& track : data->counters)
        if (track.title == QStringLiteral("Engine step SOL (%)")) sol = &track;
    ASSERT_NE(sol, nullptr);
    ASSERT_EQ(sol->value.size(), 40u);  // a step's start and end
    EXPECT_NEAR(sol->value[0], 44.04, 1e-9);
    EXPECT_EQ(sol->timeNs[1] - sol->timeNs[0], 1'000'000);
    const auto mixed = 2 * testing::kServedPrefillStep;
    EXPECT_NEAR(sol->value[mixed], 100 * 532'700 / 9e6, 1e-9);
    EXPECT_DOUBLE_EQ(sol->maxValue, 100);
    // For a person to look at (WARPSCOPE_SCREENSHOT_DIR): the store itself.
    QString shots = qEnvironmentVariable("WARPSCOPE_SCREENSHOT_DIR");
    if (!shots.isEmpty())
        std::filesystem::copy_file(db, (shots + "/engine-step-sol.wsdb").toStdString(),
                                   std::filesystem::copy_options::overwrite_existing);
}

// (Depths of thread-0 ranges are CUPTI's count over every thread-less marker:
// they do not split a domain's lane.)
TEST(TimelineRangeLanes, ProcessWideRangesGetALanePerDomain) {
    testing::TempDir dir;
    {
        Store store(dir.file("runs.wsdb"));
        const RunId run = store.beginRun({});
        {
            StoreWriter w(store, run, 100);
            w.add(range(7, 0, "", "decode step", 1'000, 9'000));
            w.add(range(7, 1, "", "attention", 2'000, 3'000));
            w.add(range(0, 0, "CUDA synchronization", "cudaStreamSynchronize", 4'000, 5'000));
            w.add(range(0, 0, "Warpscope", "capture range", 500, 6'000));
            w.add(range(0, 1, "Warpscope", "capture range", 7'000, 9'500));
            w.add(range(0, 2, "", "no domain", 100, 200));
        }
        auto data = loadTimeline(store, run);
        ASSERT_TRUE(data);
        std::map<std::string, std::size_t> events;  // "group · title" → events
        for (const auto& lane : data->lanes)
            if (lane.kind == LaneKind::Ranges)
                events[(lane.group + " · " + lane.title).toStdString()] = lane.events.size();
        EXPECT_EQ(events, (std::map<std::string, std::size_t>{{"CUDA sync · NVTX 0", 1},
                                                              {"Process · ranges", 1},
                                                              {"Thread 7 · NVTX 0", 1},
                                                              {"Thread 7 · NVTX 1", 1},
                                                              {"Warpscope · ranges", 2}}));
    }  // closed: the file alone holds the run
    // For a person to look at (WARPSCOPE_SCREENSHOT_DIR): the store itself.
    QString shots = qEnvironmentVariable("WARPSCOPE_SCREENSHOT_DIR");
    if (!shots.isEmpty())
        std::filesystem::copy_file(dir.file("runs.wsdb"),
                                   (shots + "/range-lanes.wsdb").toStdString(),
                                   std::filesystem::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace ws::ui
