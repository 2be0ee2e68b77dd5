// The timeline of a run too large to hold (issue 21: 100 M kernels), opened
// and panned the way the widget does it, from a store made by
// tests/tools/make_big_store (WS_BENCH_TIMELINE_STORE=path, its first run):
//   BM_TimelineOpen: loadTimeline (a paged run: the overview) and the first
//     frame of the whole run, painted; open_ms, first_frame_ms, the bytes the
//     timeline holds and this process's peak RSS.
//   BM_TimelinePagedFrame/PPM: a view of PPM parts per million of the run
//     panned by an eighth of its width per frame (the arrow keys); each frame
//     paints what is loaded (single events inside the loaded window, the
//     overview elsewhere) and, where the window does not cover the view,
//     loads the next one as the widget's worker would: frame p95, window
//     loads (count, median and max ms, most events), most bytes held.
//   BM_RunSearch: searchRunEvents over the whole run (what Find Results
//     lists for a paged run) for the kernels' name, a name none has and the
//     launch call every kernel has: ms, matches, peak RSS.
#include <benchmark/benchmark.h>

#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "analysis/event_search.h"
#include "store/store.h"
#include "store_db.h"
#include "timeline/lane_painter.h"
#include "viewmodels/timeline_data.h"

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

long vmHwmKiB() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    return -1;
}

std::size_t bytesHeld(const ws::ui::TimelineData& d) {
    std::size_t n = 0;
    for (const auto& lane : d.lanes) {
        n += lane.events.bytesResident() + lane.correlation.capacity() * sizeof(std::uint32_t);
        if (lane.overview) n += lane.overview->bytesResident();
    }
    for (const auto& s : d.labels)
        n += s.capacity();
    return n;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

// Paints every lane as the widget does: single events where the loaded
// window covers the view, the overview elsewhere.
void paintFrame(const ws::ui::TimelineData& d, const ws::lod::TimeAxis& axis, QImage& image) {
    image.fill(Qt::white);
    QPainter p(&image);
    const bool single = !d.paged || ws::ui::detailCovers(d, axis.originNs, axis.endNs());
    for (std::size_t l = 0; l < d.lanes.size(); ++l) {
        const auto& lane = d.lanes[l];
        QRectF r(0, static_cast<qreal>(l) * 22, axis.widthPx, 22);
        if (lane.overview && !single)
            ws::ui::paintCoarseLane(p, ws::lod::buildCoarseDrawList(*lane.overview, axis),
                                    lane.kind, r);
        else
            ws::ui::paintLane(p, ws::lod::buildDrawList(lane.events, axis), lane, d.labels, r);
    }
}

const char* storePath() {
    return std::getenv("WS_BENCH_TIMELINE_STORE");
}

ws::RunId firstRun(ws::Store& store) {
    return storeDb(store).queryInt("SELECT min(id) FROM runs");
}

void BM_TimelineOpen(benchmark::State& state) {
    if (!storePath()) {
        state.SkipWithError("set WS_BENCH_TIMELINE_STORE to a store from make_big_store");
        return;
    }
    for (auto _ : state) {
        auto t0 = Clock::now();
        ws::Store store(storePath(), {.readOnly = true});
        auto data = ws::ui::loadTimeline(store, firstRun(store));
        const double openMs = msSince(t0);
        ws::lod::TimeAxis axis;
        axis.widthPx = 1600;
        axis.fit(data->beginNs, data->endNs);
        QImage image(1600, static_cast<int>(data->lanes.size()) * 22, QImage::Format_RGB32);
        auto t1 = Clock::now();
        paintFrame(*data, axis, image);
        state.counters["open_ms"] = openMs;
        state.counters["first_frame_ms"] = msSince(t1);
        state.counters["events"] = static_cast<double>(data->eventCount);
        state.counters["paged"] = data->paged ? 1 : 0;
        state.counters["held_MiB"] = static_cast<double>(bytesHeld(*data)) / (1 << 20);
        state.counters["peak_rss_MiB"] = static_cast<double>(vmHwmKiB()) / 1024;
    }
}
BENCHMARK(BM_TimelineOpen)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_RunSearch(benchmark::State& state) {
    if (!storePath()) {
        state.SkipWithError("set WS_BENCH_TIMELINE_STORE to a store from make_big_store");
        return;
    }
    static const char* const kTexts[] = {"gemv", "no_such_kernel", "cudaLaunchKernel"};
    const char* text = kTexts[state.range(0)];
    for (auto _ : state) {
        ws::Store store(storePath(), {.readOnly = true});
        auto t0 = Clock::now();
        auto found = ws::searchRunEvents(store, firstRun(store), text, 10'000);
        state.counters["search_ms"] = msSince(t0);
        state.counters["matches"] = static_cast<double>(found.total);
        state.counters["peak_rss_MiB"] = static_cast<double>(vmHwmKiB()) / 1024;
    }
    state.SetLabel(text);
}
BENCHMARK(BM_RunSearch)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_TimelinePagedFrame(benchmark::State& state) {
    if (!storePath()) {
        state.SkipWithError("set WS_BENCH_TIMELINE_STORE to a store from make_big_store");
        return;
    }
    ws::Store store(storePath(), {.readOnly = true});
    const auto base = ws::ui::loadTimeline(store, firstRun(store));
    auto data = base;
    const std::int64_t runNs = base->endNs - base->beginNs;
    const auto span = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(static_cast<double>(runNs) * state.range(0) / 1e6));
    ws::lod::TimeAxis axis;
    axis.widthPx = 1600;
    // From a tenth into the run (a whole-run view starts at its beginning).
    std::int64_t origin = base->beginNs + std::min(runNs / 10, runNs - span);
    QImage image(1600, static_cast<int>(base->lanes.size()) * 22, QImage::Format_RGB32);
    std::vector<double> frameMs, loadMs;
    std::size_t mostEvents = 0, mostBytes = bytesHeld(*base);
    const std::size_t budget = ws::ui::TimelineLoadOptions{}.residentEvents;
    for (auto _ : state) {
        axis.fit(origin, origin + span);
        auto t0 = Clock::now();
        paintFrame(*data, axis, image);
        frameMs.push_back(msSince(t0));
        if (base->paged && !ws::ui::detailCovers(*data, axis.originNs, axis.endNs()))
            if (auto window = ws::ui::detailWindowFor(*base, axis.originNs, axis.endNs(), budget)) {
                auto t1 = Clock::now();
                data = ws::ui::loadTimelineDetail(store, *base, window->first, window->second);
                loadMs.push_back(msSince(t1));
                std::size_t events = 0;
                for (const auto& lane : data->lanes)
                    events += lane.events.size();
                mostEvents = std::max(mostEvents, events);
                mostBytes = std::max(mostBytes, bytesHeld(*data));
            }
        origin += span / 8;
        if (origin + span > base->endNs) origin = base->beginNs;
    }
    state.counters["p95_ms"] = percentile(frameMs, 0.95);
    state.counters["loads"] = static_cast<double>(loadMs.size());
    state.counters["load_p50_ms"] = percentile(loadMs, 0.5);
    state.counters["load_max_ms"] = percentile(loadMs, 1.0);
    state.counters["window_events"] = static_cast<double>(mostEvents);
    state.counters["held_MiB"] = static_cast<double>(mostBytes) / (1 << 20);
    state.counters["peak_rss_MiB"] = static_cast<double>(vmHwmKiB()) / 1024;
}
BENCHMARK(BM_TimelinePagedFrame)
    ->Arg(1'000'000)  // the whole run: overview
    ->Arg(100'000)    // 10 %: over the budget, overview
    ->Arg(10'000)     // 1 %: a window of single events
    ->Arg(100)        // 0.01 %
    ->Arg(1)          // 1 ppm: single kernels with names
    ->Unit(benchmark::kMillisecond)
    ->Iterations(60);

}  // namespace
