// What the charts show for one run: its latency statistics, its
// kernel/transfer summary and its roofline. Computed off the GUI thread.
#pragma once

#include <QMetaType>
#include <functional>
#include <optional>
#include <vector>

#include "analysis/compare.h"
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
    std::optional<Comparison> againstFirst;  // this run against the first selected one
};

RunAnalysis analyzeRun(Store& store, RunId id);
// Every run, and each run after the first compared with the first (the
// baseline of comparison mode). Stops early, returning what it has, once
// `stop` says so.
std::vector<RunAnalysis> analyzeRuns(Store& store, const std::vector<RunId>& ids,
                                     const std::function<bool()>& stop = {});

}  // namespace ws::ui

Q_DECLARE_METATYPE(std::vector<ws::ui::RunAnalysis>)
