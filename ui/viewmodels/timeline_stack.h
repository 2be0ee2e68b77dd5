// Two runs' timelines in one view, the second run's lanes below the first's,
// moved in time so that a chosen NVTX range (the first whose name contains
// `alignAt`, e.g. "decode step") starts at the same moment in both: the
// kernels of the same phase line up for comparison.
#pragma once

#include <QString>
#include <memory>
#include <string>

#include "viewmodels/timeline_data.h"

namespace ws::ui {

struct StackedTimeline {
    std::shared_ptr<const TimelineData> data;
    std::int64_t shiftNs = 0;  // added to the second run's times
    bool aligned = false;      // both runs have the range; otherwise their starts align
    QString note;              // what was aligned, in words
};

StackedTimeline stackTimelines(const TimelineData& first, const TimelineData& second,
                               const std::string& alignAt);

}  // namespace ws::ui
