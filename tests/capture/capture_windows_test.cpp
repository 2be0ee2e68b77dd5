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
    w.started(7);
    w.stopping(7);
    w.started(7);
    w.stopping(7);
    EXPECT_EQ(p.switches, (std::vector<bool>{true, false, true, false}));
    ASSERT_EQ(p.closed.size(), 2u);
    EXPECT_EQ(w.windows(), 2);
    for (const auto& r : p.closed) {
        EXPECT_EQ(r.name, kCaptureWindowName);
        EXPECT_EQ(r.domain, kCaptureWindowDomain);
        EXPECT_EQ(r.processId, 42u);
        EXPECT_EQ(r.threadId, 7u);
        EXPECT_EQ(r.kind, RangeKind::PushPop);
        EXPECT_LT(r.startNs, r.endNs);
    }
    EXPECT_LT(p.closed[0].endNs, p.closed[1].startNs);
}

TEST(CaptureWindowsTest, NestedAndRepeatedCallsOpenAndCloseOnce) {
    // cudaProfilerStart calls cuProfilerStart: two starts, then two stops.
    Probe p;
    CaptureWindows w(p.hooks(), 1);
    w.started(3);   // cuProfilerStart returned
    w.started(3);   // cudaProfilerStart returned
    w.stopping(3);  // cudaProfilerStop entered
    w.stopping(3);  // cuProfilerStop entered
    EXPECT_EQ(p.switches, (std::vector<bool>{true, false}));
    EXPECT_EQ(p.closed.size(), 1u);
}

TEST(CaptureWindowsTest, AStopWithoutAStartChangesNothing) {
    Probe p;
    CaptureWindows w(p.hooks(), 1);
    w.stopping(3);
    w.finish(3);
    EXPECT_TRUE(p.switches.empty());
    EXPECT_TRUE(p.closed.empty());
    EXPECT_EQ(w.windows(), 0);
}

TEST(CaptureWindowsTest, AWindowStillOpenAtExitEndsThere) {
    Probe p;
    CaptureWindows w(p.hooks(), 1);
    w.started(3);
    w.finish(9);  // the collector's exit handler, on another thread
    ASSERT_EQ(p.closed.size(), 1u);
    EXPECT_EQ(p.switches.back(), false);
    EXPECT_EQ(p.closed[0].threadId, 3u);
    EXPECT_EQ(p.closed[0].kind, RangeKind::StartEnd);
}

}  // namespace
}  // namespace ws::capture
