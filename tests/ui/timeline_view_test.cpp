// The timeline on the fixture run, offscreen: lanes, search, selection.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <filesystem>

#include "model/process_keys.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"
#include "timeline/lane_painter.h"
#include "timeline/timeline_view.h"
#include "viewmodels/timeline_data.h"
#include "viewmodels/timeline_load_parts.h"

namespace ws::ui {
namespace {

std::shared_ptr<const TimelineData> fixtureTimeline(RunId* runOut = nullptr) {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);
    Store store(path);
    if (runOut) *runOut = runs.decoderOk;
    return loadTimeline(store, runs.decoderOk);
}

TEST(TimelineData, LanesPerStreamThreadAndCounters) {
    auto data = fixtureTimeline();
    ASSERT_TRUE(data);
    // Streams 7 and 13 (kernels + copies each), one NVTX depth, one API thread.
    ASSERT_EQ(data->lanes.size(), 6u);
    EXPECT_EQ(data->lanes[0].title, "Stream 7");
    EXPECT_EQ(data->lanes[0].events.size(), 120u);
    EXPECT_EQ(data->lanes[1].kind, LaneKind::Memcpys);
    EXPECT_EQ(data->lanes[4].kind, LaneKind::Ranges);
    EXPECT_EQ(data->lanes[5].kind, LaneKind::ApiCalls);
    EXPECT_EQ(data->tokenTimes.size(), 10u);
    ASSERT_EQ(data->counters.size(), 2u);
    EXPECT_EQ(data->counters[0].title, "Power (W)");
    EXPECT_EQ(data->eventCount, 240u + 7 + 5 + 4);
}

SampleRecord deviceSample(std::uint32_t device, std::int64_t timeMs, double util,
                          std::optional<std::int64_t> nvlinkBytes) {
    SampleRecord s;
    s.deviceIndex = device;
    s.timeNs = timeMs * 1'000'000;
    s.powerW = 100 + device;
    s.smClockMhz = 1980;
    s.gpuUtilPercent = util;
    s.nvlinkTxBytes = nvlinkBytes;
    s.nvlinkRxBytes = nvlinkBytes;
    return s;
}

// A TP=2 run on a four-GPU server: GPUs 0 and 1 busy, each sending 1 GB/s
// to the other over NVLink (2 GB/s both ways), GPU 2 idle all run, GPU 3
// without NVLink counters.
TEST(TimelineData, DeviceCountersForEachBusyGpuWithNvlinkRates) {
    std::vector<SampleRecord> samples;
    for (int i = 0; i < 3; ++i) {
        const std::int64_t sent = 50'000'000LL * i;  // 50 MB per 50 ms
        samples.push_back(deviceSample(0, 50 * i, 90, sent));
        samples.push_back(deviceSample(1, 50 * i, 80, sent));
        samples.push_back(deviceSample(2, 50 * i, 0, 0));
        samples.push_back(deviceSample(3, 50 * i, 5, std::nullopt));
    }
    TimelineData data;
    load::addDeviceCounters(samples, data);
    std::vector<QString> titles;
    for (const auto& c : data.counters)
        titles.push_back(c.title);
    EXPECT_EQ(titles, (std::vector<QString>{"GPU 0 Power (W)", "GPU 0 SM clock (MHz)",
                                            "GPU 0 NVLink tx+rx (GB/s)", "GPU 1 Power (W)",
                                            "GPU 1 SM clock (MHz)", "GPU 1 NVLink tx+rx (GB/s)",
                                            "GPU 3 Power (W)", "GPU 3 SM clock (MHz)"}));
    // Two intervals, each drawn from its start, and the end of the last.
    ASSERT_EQ(data.counters[2].value.size(), 3u);
    EXPECT_DOUBLE_EQ(data.counters[2].value[0], 2.0);  // 1 GB/s each way
    EXPECT_DOUBLE_EQ(data.counters[2].maxValue, 2.0);
    EXPECT_EQ(data.counters[2].timeNs, (std::vector<std::int64_t>{0, 50'000'000, 100'000'000}));
}

// A one-GPU run on GPU 3 of a server whose other GPUs idle: GPU 3's tracks
// alone, titled as a one-GPU run's.
TEST(TimelineData, AOneGpuRunOnAnotherGpuShowsThatGpu) {
    std::vector<SampleRecord> samples;
    for (int i = 0; i < 3; ++i)
        for (std::uint32_t device = 0; device < 4; ++device)
            samples.push_back(deviceSample(device, 50 * i, device == 3 ? 70 : 0, 0));
    TimelineData data;
    load::addDeviceCounters(samples, data);
    ASSERT_EQ(data.counters.size(), 2u);
    EXPECT_EQ(data.counters[0].title, "Power (W)");
    EXPECT_EQ(data.counters[0].value[0], 103);  // GPU 3's power
}

// GPU metric series become tracks in the units a user reads: percentages on
// a 0-100 scale, bytes per second as GB/s; a metric named by the user keeps
// its CUPTI name. Each sample holds to its end.
TEST(TimelineData, GpuMetricSeriesBecomeTracksInTheirUnits) {
    GpuMetricSeries sm{0,
                       "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
                       {{0, 100'000, 40}, {100'000, 200'000, 60}}};
    GpuMetricSeries dram{0, "dram__bytes_read.sum.per_second", {{0, 100'000, 2.5e12}}};
    GpuMetricSeries other{0, "gpc__cycles_elapsed.max", {{0, 100'000, 7}}};
    TimelineData data;
    load::addGpuMetricTracks({sm, dram, other}, data);
    ASSERT_EQ(data.counters.size(), 3u);
    EXPECT_EQ(data.counters[0].title, "SM active (%)");
    EXPECT_DOUBLE_EQ(data.counters[0].maxValue, 100);
    EXPECT_EQ(data.counters[0].timeNs, (std::vector<std::int64_t>{0, 100'000, 200'000}));
    EXPECT_EQ(data.counters[1].title, "DRAM read (GB/s)");
    EXPECT_DOUBLE_EQ(data.counters[1].value[0], 2500);
    EXPECT_EQ(data.counters[2].title, "gpc__cycles_elapsed.max");
}

// A 10 kHz track zoomed out to a few hundred pixels draws each pixel column
// as the mean of its samples: a 90 % first half, and a second half that
// alternates 0 and 20 % every sample reads 10 % (not the 20 % envelope).
TEST(TimelineData, ACounterOfManySamplesDrawsTheirMeanPerPixel) {
    CounterTrack track{"SM active (%)", {}, {}, 100};
    for (int i = 0; i < 200'000; ++i) {
        track.timeNs.push_back(i * 100'000LL);
        track.value.push_back(i < 100'000 ? 90 : (i % 2 ? 20 : 0));
    }
    QImage image(400, 50, QImage::Format_ARGB32);
    image.fill(Qt::white);
    lod::TimeAxis axis;
    axis.originNs = 0;
    axis.nsPerPx = 200'000 * 100'000.0 / 400;
    {
        QPainter p(&image);
        paintCounter(p, track, axis, QRectF(0, 0, 400, 50));
    }
    auto filledRows = [&](int x) {
        int n = 0;
        for (int y = 0; y < image.height(); ++y)
            n += image.pixelColor(x, y) != QColor(Qt::white);
        return n;
    };
    EXPECT_NEAR(filledRows(100), 0.9 * 48, 3);
    EXPECT_NEAR(filledRows(300), 0.1 * 48, 3);
}

// One GPU whose NVLink carried nothing: no flat NVLink tracks, plain titles.
TEST(TimelineData, OneGpuWithoutNvlinkTrafficGetsPowerAndClockOnly) {
    std::vector<SampleRecord> samples;
    for (int i = 0; i < 3; ++i)
        samples.push_back(deviceSample(0, 50 * i, 90, 4096));
    TimelineData data;
    load::addDeviceCounters(samples, data);
    ASSERT_EQ(data.counters.size(), 2u);
    EXPECT_EQ(data.counters[0].title, "Power (W)");
    EXPECT_EQ(data.counters[1].title, "SM clock (MHz)");
}

// Two processes on one GPU, each with its CUDA stream 7 (the second stored
// renumbered): a lane each, named by pid and the program the recorder read.
TEST(TimelineData, StreamsOfSeveralProcessesNameTheirProcess) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        const std::uint32_t renumbered = 7 + (1u << 24);
        w.add(GpuStreamRecord{0, 7, 800, 7});
        w.add(GpuStreamRecord{0, renumbered, 812, 7});
        for (std::uint32_t stream : {7u, renumbered}) {
            KernelRecord k;
            k.startNs = 1000;
            k.endNs = 2000;
            k.streamId = stream;
            k.name = "k";
            w.add(k);
        }
    }
    store.setProperty(run, process_keys::command(800), "/usr/bin/python3 server.py --port 8000");
    store.setProperty(run, process_keys::command(812),
                      "/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; "
                      "spawn_main(tracker_fd=5) --multiprocessing-fork");
    store.setProperty(run, process_keys::rank(812), "1");
    auto data = loadTimeline(store, run);
    ASSERT_TRUE(data);
    ASSERT_EQ(data->lanes.size(), 2u);
    EXPECT_EQ(data->lanes[0].title, "pid 800 server.py stream 7");
    EXPECT_EQ(data->lanes[1].title, "pid 812 python3 (spawned worker) stream 7");
    EXPECT_EQ(data->lanes[0].group, "GPU 0");
    EXPECT_EQ(data->lanes[1].group, "GPU 0 · rank 1");  // a rank has its own lane group
}

// A client-only run (tokens, no GPU work): the axis spans its tokens instead
// of keeping the previous run's, and the view says what is missing.
TEST(TimelineView, ARunWithoutGpuWorkSpansItsTokensAndSaysSo) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        for (int i = 0; i < 5; ++i)
            w.add(TokenRecord{0, i, 1'000'000'000'000 + i * 10'000'000LL});
    }
    TimelineView view;
    view.resize(1200, 400);
    view.setData(fixtureTimeline());  // another run first: its axis must not stay
    view.setData(loadTimeline(store, run));
    ASSERT_EQ(view.data()->eventCount, 0u);
    EXPECT_EQ(view.data()->beginNs, 1'000'000'000'000);
    EXPECT_EQ(view.data()->endNs, 1'000'040'000'000);
    EXPECT_LE(view.axis().toTime(0), 1'000'000'000'000);
    EXPECT_GE(view.axis().endNs(), 1'000'040'000'000);
    EXPECT_LT(view.axis().endNs() - view.axis().toTime(0), 100'000'000);  // not epoch-wide
    EXPECT_FALSE(view.grab().isNull());
}

// A resize keeps the time span in view and fits it to the new width (it
// used to keep the scale: a narrower window cut the end off, a wider one
// added empty time after it).
TEST(TimelineView, AResizeKeepsTheVisibleSpan) {
    TimelineView view;
    view.resize(1200, 400);
    view.show();  // a hidden widget gets its resize events only when shown
    QCoreApplication::processEvents();
    view.setData(fixtureTimeline());
    const int header = view.width() - view.axis().widthPx;  // the lane names
    const std::int64_t begin = view.axis().toTime(0), end = view.axis().endNs();
    for (int width : {600, 1900, 1200}) {
        view.resize(width, 400);
        QCoreApplication::processEvents();
        ASSERT_EQ(view.axis().widthPx, width - header) << "no resize event reached the view";
        EXPECT_NEAR(double(view.axis().toTime(0)), double(begin), double(end - begin) / 1000)
            << width;
        EXPECT_NEAR(double(view.axis().endNs()), double(end), double(end - begin) / 1000) << width;
    }
}

TEST(TimelineView, SearchHighlightsAndStepsThroughMatches) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(fixtureTimeline());
    EXPECT_EQ(view.setSearch("gemv"), 60u);
    QSignalSpy selected(&view, &TimelineView::eventSelected);
    ASSERT_TRUE(view.findNext());
    ASSERT_EQ(selected.count(), 1);
    auto first = view.selection();
    EXPECT_TRUE(selected.last().at(2).toString().contains("gemv_bf16_splitk"));
    ASSERT_TRUE(view.findNext());
    auto second = view.selection();
    const auto& lanes = view.data()->lanes;
    EXPECT_LT(lanes[static_cast<std::size_t>(first.lane)].events.start(
                  static_cast<std::size_t>(first.event)),
              lanes[static_cast<std::size_t>(second.lane)].events.start(
                  static_cast<std::size_t>(second.event)));
    ASSERT_TRUE(view.findNext(true));
    EXPECT_EQ(view.selection().event, first.event);
    // The fixture's gemv kernels 1001.. were launched by recorded API calls.
    auto launch = view.launchOfSelection();
    ASSERT_GE(launch.lane, 0);
    EXPECT_EQ(view.data()->lanes[static_cast<std::size_t>(launch.lane)].kind, LaneKind::ApiCalls);
    EXPECT_EQ(view.data()
                  ->lanes[static_cast<std::size_t>(launch.lane)]
                  .correlation[static_cast<std::size_t>(launch.event)],
              view.data()
                  ->lanes[static_cast<std::size_t>(first.lane)]
                  .correlation[static_cast<std::size_t>(first.event)]);
    EXPECT_EQ(view.setSearch("no such kernel"), 0u);
    EXPECT_FALSE(view.findNext());
}

// A cudaGraphLaunch selected: flows to every kernel of the graph (they share
// its correlation id), none to a kernel of another launch.
TEST(TimelineView, AGraphLaunchFlowsToEachOfItsKernels) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(ApiCallRecord{1000, 1500, 1, 1, 9, ApiKind::Runtime, 0, "cudaGraphLaunch", 0});
        w.add(ApiCallRecord{1600, 1700, 1, 1, 10, ApiKind::Runtime, 0, "cudaLaunchKernel", 0});
        for (auto [start, correlation] : {std::pair{2000, 9}, {3000, 9}, {4000, 10}, {5000, 9}}) {
            KernelRecord k;
            k.startNs = start;
            k.endNs = start + 500;
            k.streamId = 7;
            k.correlationId = static_cast<std::uint32_t>(correlation);
            k.name = correlation == 9 ? "graph_node" : "single";
            w.add(k);
        }
    }
    TimelineView view;
    view.resize(1200, 400);
    view.setData(loadTimeline(store, run));
    QSignalSpy selected(&view, &TimelineView::eventSelected);
    ASSERT_EQ(view.setSearch("cudaGraphLaunch"), 1u);
    ASSERT_TRUE(view.findNext());
    const auto& launched = view.launchedBySelection();
    ASSERT_EQ(launched.size(), 3u);
    const auto& lane = view.data()->lanes[static_cast<std::size_t>(launched[0].first)];
    EXPECT_EQ(lane.events.start(static_cast<std::size_t>(launched[0].second)), 2000);
    EXPECT_EQ(lane.events.start(static_cast<std::size_t>(launched[2].second)), 5000);
    EXPECT_TRUE(selected.last().at(2).toString().contains("launched 3 kernels"));
    ASSERT_EQ(view.setSearch("cudaLaunchKernel"), 1u);
    ASSERT_TRUE(view.findNext());
    EXPECT_EQ(view.launchedBySelection().size(), 1u);
    EXPECT_FALSE(view.grab().isNull());  // the flows paint
}

// Ruler labels tell neighbouring ticks apart however far into the run.
TEST(TimelineRuler, LabelsCarryTheDecimalsTheirStepNeeds) {
    EXPECT_EQ(timeLabel(50'000'020'000, 20'000), "50.00002 s");
    EXPECT_EQ(timeLabel(50'000'000'000, 10'000'000'000), "50 s");
    EXPECT_EQ(timeLabel(1'500'000, 500'000), "1.5 ms");
    EXPECT_EQ(timeLabel(2'000, 1'000), QStringLiteral("2 µs"));
    EXPECT_EQ(timeLabel(250, 50), "250 ns");
}

TEST(TimelineView, FitShowsWholeRunAndRendersOffscreen) {
    TimelineView view;
    view.resize(1200, 400);
    view.setData(fixtureTimeline());
    const auto& a = view.axis();
    EXPECT_EQ(a.widthPx, 1200 - TimelineView::kHeaderWidth);
    EXPECT_LE(a.originNs, view.data()->beginNs);
    EXPECT_GE(a.endNs(), view.data()->endNs);
    QImage image = view.grab().toImage();
    EXPECT_EQ(image.width(), 1200);
    // Something was painted in the lane area besides the white background.
    int coloured = 0;
    for (int x = TimelineView::kHeaderWidth; x < image.width(); x += 3)
        for (int y = 100; y < 260; y += 3)
            if (image.pixelColor(x, y) != QColor(Qt::white)) ++coloured;
    EXPECT_GT(coloured, 100);
}

}  // namespace
}  // namespace ws::ui
