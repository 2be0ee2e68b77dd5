// record --capture-range cudaProfilerApi: what the CUPTI callbacks on
// cudaProfilerStart/Stop make of the program's calls (capture_windows.h).
#include "capture/capture_windows.h"

#include <gtest/gtest.h>

#include <vector>

namespace ws::capture {
namespace {

struct Probe {
    std::vector<bool> switches;  // each setTracing call, in order
    std::vector<RangeRecord> closed;
    std::int64_t clock = 1000;

    CaptureWindowHooks hooks() {
        return {[this](bool on) { switches.push_back(on); }, [this] { return clock += 10; },
                [this](const RangeRecord& r) { closed.push_back(r); }};
    }
};

TEST(CaptureWindowsTest, EachStartStopPairIsOneTracedWindow) {
    Probe p;
    CaptureWindows w(p.hooks(), 42);
    w.started();
    w.stopping();
    w.started();
    w.stopping();
    EXPECT_EQ(p.switches, (std::vector<bool>{true, false, true, false}));
    ASSERT_EQ(p.closed.size(), 2u);
    EXPECT_EQ(w.windows(), 2);
    for (const auto& r : p.closed) {
        EXPECT_EQ(r.name, "capture range");
        EXPECT_EQ(r.domain, "Warpscope");
        EXPECT_EQ(r.processId, 42u);
        // Process-wide, as CUDA's synchronization ranges: no thread's NVTX
        // parent, a timeline lane of its own.
        EXPECT_EQ(r.threadId, 0u);
        EXPECT_EQ(r.kind, RangeKind::StartEnd);
        EXPECT_LT(r.startNs, r.endNs);
    }
    EXPECT_LT(p.closed[0].endNs, p.closed[1].startNs);
}

TEST(CaptureWindowsTest, NestedAndRepeatedCallsOpenAndCloseOnce) {
    // cudaProfilerStart calls cuProfilerStart: two starts, then two stops.
    Probe p;
    CaptureWindows w(p.hooks(), 1);
    w.started();   // cuProfilerStart returned
    w.started();   // cudaProfilerStart returned
    w.stopping();  // cudaProfilerStop entered
    w.stopping();  // cuProfilerStop entered
    EXPECT_EQ(p.switches, (std::vector<bool>{true, false}));
    EXPECT_EQ(p.closed.size(), 1u);
}

TEST(CaptureWindowsTest, AStopWithoutAStartChangesNothing) {
    Probe p;
    CaptureWindows w(p.hooks(), 1);
    w.stopping();
    w.finish();
    EXPECT_TRUE(p.switches.empty());
    EXPECT_TRUE(p.closed.empty());
    EXPECT_EQ(w.windows(), 0);
}

TEST(CaptureWindowsTest, AWindowStillOpenAtExitEndsThereAndNoneOpensAfter) {
    Probe p;
    CaptureWindows w(p.hooks(), 1);
    w.started();
    w.finish();  // the collector's exit handler
    ASSERT_EQ(p.closed.size(), 1u);
    EXPECT_EQ(p.switches, (std::vector<bool>{true, false}));
    // The collector has stopped sending: a later start opens nothing.
    w.started();
    w.stopping();
    EXPECT_EQ(p.switches.size(), 2u);
    EXPECT_EQ(p.closed.size(), 1u);
}

}  // namespace
}  // namespace ws::capture
