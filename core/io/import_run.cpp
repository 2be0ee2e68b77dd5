#include "io/import_run.h"

#include <algorithm>
#include <tuple>

#include "analysis/sweep.h"
#include "conventions/run_conventions.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"

namespace ws {

void importError(const std::string& path, const std::string& field, const std::string& why) {
    throw std::runtime_error(path + ": " + field + ": " + why + "; nothing was imported");
}

ImportedRun storeImportedRun(Store& store, const NewRun& run,
                             const std::function<void(RunId, StoreWriter&)>& fill,
                             std::int64_t endedAtNs) {
    // One transaction: a failure, a full disk or kill -9 at any point leaves
    // no run, no half-written records and no orphan workload or device rows.
    store.requireWritable("import a run");
    Store::Transaction tx(store);
    RunId id = store.beginRun(run);
    ImportedRun out{id, 0, 0, 0};
    StoreWriter writer(store, id);
    fill(id, writer);
    writer.flush();
    auto conventions = applyNvtxConventions(store, id, writer);
    writer.flush();
    out.records = writer.written();
    out.requests = conventions.requests;
    out.tokens = conventions.tokens;
    if (endedAtNs == 0) {
        auto agg = runAggregates(store, id);
        std::int64_t span = agg.firstNs && agg.lastNs ? *agg.lastNs - *agg.firstNs : 0;
        endedAtNs = requireRun(store, id).startedAtNs + span;
    }
    store.finishRun(id, RunStatus::Ok, std::nullopt, std::nullopt, endedAtNs);
    tx.commit();
    return out;
}

std::string markImportedSweep(Store& store, const std::vector<RunId>& runs, const std::string& name,
                              const std::string& parameter,
                              const std::vector<std::string>& values) {
    std::string group =
        name + " (runs " + std::to_string(runs.front()) + "-" + std::to_string(runs.back()) + ")";
    namespace k = sweep_keys;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        store.setProperty(runs[i], k::kGroup, group);
        store.setProperty(runs[i], k::kParameter, parameter);
        store.setProperty(runs[i], k::kValue, values.at(i));
        store.setProperty(runs[i], k::kIndex, std::to_string(i));
        store.setProperty(runs[i], k::kPoints, std::to_string(runs.size()));
        store.setProperty(runs[i], k::kGpus, "1");
    }
    return group;
}

}  // namespace ws

namespace ws {

void assignNestingDepth(std::vector<RangeRecord>& ranges) {
    std::sort(ranges.begin(), ranges.end(), [](const RangeRecord& a, const RangeRecord& b) {
        return std::tie(a.processId, a.threadId, a.startNs, b.endNs) <
               std::tie(b.processId, b.threadId, b.startNs, a.endNs);
    });
    std::vector<std::int64_t> openEnds;
    std::pair<std::uint32_t, std::uint32_t> thread{~0u, ~0u};
    for (auto& r : ranges) {
        if (r.kind != RangeKind::PushPop) continue;
        if (std::pair(r.processId, r.threadId) != thread) {
            openEnds.clear();
            thread = {r.processId, r.threadId};
        }
        while (!openEnds.empty() && openEnds.back() <= r.startNs)
            openEnds.pop_back();
        r.depth = static_cast<std::int32_t>(openEnds.size());
        openEnds.push_back(r.endNs);
    }
}

}  // namespace ws
