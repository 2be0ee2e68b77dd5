#include "io/import_run.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
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

namespace {

// A sweep value's order: numbers by value, "inf" last.
double sweepOrder(const std::string& value) {
    if (value == "inf") return std::numeric_limits<double>::infinity();
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    return end != value.c_str() ? v : 0;
}

}  // namespace

ImportResult storePreparedRuns(Store& store, const std::string& format,
                               const std::vector<PreparedRun>& runs, const std::string& sweepName,
                               const std::string& sweepParameter) {
    ImportResult result;
    result.format = format;
    store.requireWritable("import a run");
    Store::Transaction tx(store);
    for (const auto& r : runs) {
        auto imported = storeImportedRun(
            store, r.run,
            [&](RunId run, StoreWriter& w) {
                for (const auto& q : r.requests)
                    w.add(q);
                for (const auto& t : r.tokens)
                    w.add(t);
                for (const auto& [key, value] : r.properties)
                    store.setProperty(run, key, value);
                if (!r.log.empty()) store.appendLog(run, r.log);
            },
            r.endedAtNs);
        result.runs.push_back(imported.run);
        result.requests += static_cast<std::int64_t>(r.requests.size());
        result.events += imported.records;
    }
    if (runs.size() > 1 && !sweepParameter.empty()) {
        std::vector<std::size_t> order(runs.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return sweepOrder(runs[a].sweepValue) < sweepOrder(runs[b].sweepValue);
        });
        result.sweepGroup = sweepName + " (runs " + std::to_string(result.runs.front()) + "-" +
                            std::to_string(result.runs.back()) + ")";
        namespace k = sweep_keys;
        for (std::size_t point = 0; point < order.size(); ++point) {
            RunId run = result.runs[order[point]];
            store.setProperty(run, k::kGroup, result.sweepGroup);
            store.setProperty(run, k::kParameter, sweepParameter);
            store.setProperty(run, k::kValue, runs[order[point]].sweepValue);
            store.setProperty(run, k::kIndex, std::to_string(point));
            store.setProperty(run, k::kPoints, std::to_string(runs.size()));
            store.setProperty(run, k::kGpus, "1");
        }
    }
    tx.commit();
    result.run = result.runs.front();
    return result;
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
