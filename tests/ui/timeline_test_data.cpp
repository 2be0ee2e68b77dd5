#include "timeline_test_data.h"

namespace ws::testing {

std::shared_ptr<const ui::TimelineData> smallTimeline(RunId run, int extraGemv) {
    using ui::LaneKind;
    auto d = std::make_shared<ui::TimelineData>();
    d->run = run;
    d->labels = {"gemv_bf16", "rmsnorm", "decode step", "cudaLaunchKernel"};
    const std::int64_t t0 = kTimelineBeginNs, us = 1'000;
    auto lane = [&](QString group, QString title, LaneKind kind) {
        ui::TimelineLane l;
        l.group = std::move(group);
        l.title = std::move(title);
        l.kind = kind;
        return l;
    };
    auto s7 = lane("GPU 0", "Stream 7", LaneKind::Kernels);
    s7.events.add(t0 + 100 * us, t0 + 140 * us, 0);
    s7.events.add(t0 + 200 * us, t0 + 210 * us, 1);
    s7.events.add(t0 + 300 * us, t0 + 320 * us, 0);
    s7.events.add(t0 + 500 * us, t0 + 500 * us + 10, 0);  // 10 ns: a sliver at any fit
    auto s13 = lane("GPU 0", "Stream 13", LaneKind::Kernels);
    s13.events.add(t0 + 150 * us, t0 + 160 * us, 0);
    s13.events.add(t0 + 300 * us, t0 + 390 * us, 0);
    auto nvtx = lane("Thread 1", "NVTX 0", LaneKind::Ranges);
    nvtx.events.add(t0 + 90 * us, t0 + 600 * us, 2);
    auto api = lane("Thread 1", "CUDA API", LaneKind::ApiCalls);
    api.events.add(t0 + 95 * us, t0 + 99 * us, 3);
    d->lanes = {s7, s13, nvtx, api};
    if (extraGemv > 0) {
        auto extra = lane("GPU 1", "Stream 1", LaneKind::Kernels);
        for (int i = 0; i < extraGemv; ++i)
            extra.events.add(t0 + 1'000 * us + i * us, t0 + 1'000 * us + i * us + 500, 0);
        d->lanes.push_back(std::move(extra));
    }
    d->counters = {ui::CounterTrack{"Power (W)", {t0, t0 + 300 * us}, {200, 400}, 400}};
    d->beginNs = t0;
    d->endNs = t0 + (extraGemv > 0 ? 1'000 * us + extraGemv * us : 600 * us);
    for (const auto& l : d->lanes)
        d->eventCount += l.events.size();
    return d;
}

}  // namespace ws::testing
