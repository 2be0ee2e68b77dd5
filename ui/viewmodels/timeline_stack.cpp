#include "viewmodels/timeline_stack.h"

#include <QObject>
#include <algorithm>
#include <optional>

namespace ws::ui {

namespace {

// Start of the earliest range whose name contains `text`.
std::optional<std::int64_t> firstRange(const TimelineData& d, const std::string& text) {
    std::optional<std::int64_t> best;
    if (text.empty()) return best;
    for (const auto& lane : d.lanes) {
        if (lane.kind != LaneKind::Ranges) continue;
        for (std::size_t i = 0; i < lane.events.size(); ++i) {
            if (best && lane.events.start(i) >= *best) break;  // lanes are in start order
            if (d.labels[lane.events.label(i)].find(text) != std::string::npos)
                best = lane.events.start(i);
        }
    }
    return best;
}

void appendLanes(TimelineData& out, const TimelineData& in, std::int64_t shift) {
    auto labelBase = static_cast<std::uint32_t>(out.labels.size());
    out.labels.insert(out.labels.end(), in.labels.begin(), in.labels.end());
    QString prefix = QStringLiteral("#%1 ").arg(in.run);
    for (const auto& lane : in.lanes) {
        TimelineLane copy;
        copy.title = prefix + lane.title;
        copy.group = lane.group;  // the title carries the run
        copy.kind = lane.kind;
        copy.laneId = lane.laneId;
        copy.deviceId = lane.deviceId;
        copy.correlation = lane.correlation;
        // A paged run stacks as its overview: the stack loads no windows.
        if (lane.overview)
            copy.overview = std::make_shared<const lod::CoarseLane>(lane.overview->shifted(shift));
        copy.run = lane.run ? lane.run : in.run;
        copy.shiftNs = lane.shiftNs + shift;
        copy.events.reserve(lane.events.size());
        for (std::size_t i = 0; i < lane.events.size(); ++i)
            copy.events.add(lane.events.start(i) + shift, lane.events.end(i) + shift,
                            lane.events.label(i) + labelBase);
        out.lanes.push_back(std::move(copy));
    }
    for (auto t : in.tokenTimes)
        out.tokenTimes.push_back(t + shift);
    for (const auto& c : in.counters) {
        CounterTrack copy = c;
        copy.title = prefix + c.title;
        for (auto& t : copy.timeNs)
            t += shift;
        out.counters.push_back(std::move(copy));
    }
    out.eventCount += in.eventCount;
}

}  // namespace

StackedTimeline stackTimelines(const TimelineData& first, const TimelineData& second,
                               const std::string& alignAt) {
    StackedTimeline out;
    auto a = firstRange(first, alignAt);
    auto b = firstRange(second, alignAt);
    out.aligned = a && b;
    out.shiftNs = out.aligned ? *a - *b : first.beginNs - second.beginNs;
    auto data = std::make_shared<TimelineData>();
    data->run = first.run;
    // A span selected on the stacked timeline is the first run's (the second
    // run's lanes are moved by shiftNs; its own window would differ).
    data->firstRecordNs = first.firstRecordNs;
    appendLanes(*data, first, 0);
    appendLanes(*data, second, out.shiftNs);
    std::sort(data->tokenTimes.begin(), data->tokenTimes.end());
    data->beginNs = std::min(first.beginNs, second.beginNs + out.shiftNs);
    data->endNs = std::max(first.endNs, second.endNs + out.shiftNs);
    out.note = out.aligned ? QObject::tr("#%1 below #%2, aligned at the first range named '%3'")
                                 .arg(second.run)
                                 .arg(first.run)
                                 .arg(QString::fromStdString(alignAt))
                           : QObject::tr(
                                 "#%1 below #%2, aligned at their starts (no range named '%3' "
                                 "in both)")
                                 .arg(second.run)
                                 .arg(first.run)
                                 .arg(QString::fromStdString(alignAt));
    out.data = std::move(data);
    return out;
}

}  // namespace ws::ui
