#include "models/run_analysis.h"

#include "analysis/run_latency.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::ui {

RunAnalysis analyzeRun(Store& store, RunId id) {
    RunAnalysis a;
    a.run = requireRun(store, id);
    a.latency = runLatency(store, id, contractTargets(store, id));
    a.summary = summarizeRun(store, id, measuredWindow(store, id));  // not set-up or checks
    a.roofline = computeRoofline(store, id);
    a.occupancy = topKernelOccupancy(store, id);
    return a;
}

}  // namespace ws::ui
