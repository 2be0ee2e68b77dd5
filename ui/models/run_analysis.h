// What the charts show for one run: its latency statistics, its
// kernel/transfer summary and its roofline. Computed off the GUI thread.
#pragma once

#include <QMetaType>
#include <vector>

#include "analysis/kernel_occupancy.h"
#include "analysis/kernel_summary.h"
#include "analysis/latency.h"
#include "analysis/roofline.h"
#include "model/records.h"

namespace ws {
class Store;
}

namespace ws::ui {

struct RunAnalysis {
    RunInfo run;
    LatencyReport latency;
    RunSummary summary;
    Roofline roofline;
    std::vector<KernelOccupancy> occupancy;  // top kernels by time
};

RunAnalysis analyzeRun(Store& store, RunId id);

}  // namespace ws::ui

Q_DECLARE_METATYPE(std::vector<ws::ui::RunAnalysis>)
