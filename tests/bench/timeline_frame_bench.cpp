// BM_TimelineFrame: a run of 10 million kernels on 8 streams; each iteration
// builds the draw lists of all 8 lanes for one view and paints them into a
// 1600×400 image, as the timeline widget does. Reports p95_ms over the
// iterations and the bytes resident per event.
#include <benchmark/benchmark.h>

#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <random>

#include "lod/lane_index.h"
#include "timeline/lane_painter.h"
#include "viewmodels/timeline_data.h"

namespace {

struct Run {
    std::vector<ws::ui::TimelineLane> lanes;
    std::vector<std::string> labels;
    std::int64_t endNs = 0;
    std::size_t bytes = 0;
    std::size_t events = 0;
};

const Run& tenMillionKernels() {
    static Run run = [] {
        Run r;
        constexpr int kStreams = 8;
        constexpr int kPerStream = 1'250'000;
        for (int i = 0; i < 40; ++i)
            r.labels.push_back("kernel_" + std::to_string(i));
        std::mt19937 rng(1);
        std::uniform_int_distribution<int> dur(800, 30'000), gap(200, 4'000);
        for (int s = 0; s < kStreams; ++s) {
            ws::ui::TimelineLane lane;
            lane.title = QStringLiteral("Stream %1").arg(s);
            lane.events.reserve(kPerStream);
            std::int64_t t = 0;
            for (int i = 0; i < kPerStream; ++i) {
                std::int64_t d = dur(rng);
                lane.events.add(t, t + d, static_cast<std::uint32_t>(i % 40));
                t += d + gap(rng);
            }
            r.endNs = std::max(r.endNs, t);
            r.bytes += lane.events.bytesResident();
            r.events += lane.events.size();
            r.lanes.push_back(std::move(lane));
        }
        return r;
    }();
    return run;
}

// state.range(0): the view as parts per million of the run (1e6 = all of it).
void BM_TimelineFrame(benchmark::State& state) {
    const Run& run = tenMillionKernels();
    ws::lod::TimeAxis axis;
    axis.widthPx = 1600;
    const auto span =
        static_cast<std::int64_t>(static_cast<double>(run.endNs) * state.range(0) / 1e6);
    QImage image(1600, 8 * 22, QImage::Format_RGB32);
    std::vector<double> frameMs;
    std::int64_t offset = 0;
    for (auto _ : state) {
        // Each frame looks somewhere else, as when panning.
        offset = (offset + run.endNs / 97) % std::max<std::int64_t>(1, run.endNs - span);
        axis.fit(offset, offset + span);
        auto t0 = std::chrono::steady_clock::now();
        image.fill(Qt::white);
        QPainter p(&image);
        std::size_t items = 0;
        for (std::size_t l = 0; l < run.lanes.size(); ++l) {
            auto list = ws::lod::buildDrawList(run.lanes[l].events, axis);
            items += list.size();
            ws::ui::paintLane(p, list, run.lanes[l], run.labels,
                              QRectF(0, static_cast<qreal>(l) * 22, 1600, 22));
        }
        p.end();
        benchmark::DoNotOptimize(items);
        frameMs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    std::sort(frameMs.begin(), frameMs.end());
    state.counters["p95_ms"] =
        frameMs[static_cast<std::size_t>(0.95 * static_cast<double>(frameMs.size() - 1))];
    state.counters["bytes_per_event"] =
        static_cast<double>(run.bytes) / static_cast<double>(run.events);
    state.counters["events"] = static_cast<double>(run.events);
}
BENCHMARK(BM_TimelineFrame)
    ->Arg(1'000'000)  // the whole run: everything folded
    ->Arg(10'000)     // 1% of it
    ->Arg(100)        // 0.01%: individual kernels with names
    ->Unit(benchmark::kMillisecond)
    ->Iterations(60);

}  // namespace
