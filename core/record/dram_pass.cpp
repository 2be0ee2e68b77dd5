#include "record/dram_pass.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/counter_metrics.h"
#include "store/run_edits.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws {

namespace {

struct CountedKernel {
    std::uint32_t correlationId = 0;
    std::string name;
    double read = 0, write = 0;
};

struct Counted {
    std::vector<CountedKernel> kernels;  // in launch order
    bool repeatedIds = false;            // several processes: ids do not name one kernel
};

Counted countedKernels(Store& store, RunId run) {
    struct Bytes {
        std::optional<double> read, write;
    };
    std::unordered_map<std::uint32_t, Bytes> bytes;
    for (const auto& m : kernelMetricsOf(store, run)) {
        if (m.metric == counters::kDramRead) bytes[m.correlationId].read = m.value;
        if (m.metric == counters::kDramWrite) bytes[m.correlationId].write = m.value;
    }
    Counted out;
    std::unordered_set<std::uint32_t> seen;
    for (const auto& k : kernelsIn(store, run)) {
        auto it = bytes.find(k.correlationId);
        if (it == bytes.end() || !it->second.read || !it->second.write) continue;
        if (!seen.insert(k.correlationId).second) out.repeatedIds = true;
        out.kernels.push_back({k.correlationId, k.name, *it->second.read, *it->second.write});
    }
    return out;
}

}  // namespace

DramMerge mergeDramBytes(Store& target, RunId run, Store& pass, RunId passRun) {
    const Counted ours = countedKernels(target, run);
    const Counted theirs = countedKernels(pass, passRun);
    DramMerge result;
    if (ours.repeatedIds || theirs.repeatedIds) {
        result.problem =
            "kernels of several processes share correlation ids, so launches cannot be matched";
        return result;
    }
    if (ours.kernels.empty()) {
        result.problem = "the run has no kernel with DRAM counts";
        return result;
    }
    const auto& a = ours.kernels;
    const auto& b = theirs.kernels;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (a[i].name != b[i].name) {
            result.problem = "the program launched other kernels the second time: launch " +
                             std::to_string(i + 1) + " was " + a[i].name + ", then " + b[i].name;
            return result;
        }
    if (a.size() != b.size()) {
        result.problem = "the program launched " + std::to_string(a.size()) +
                         " counted kernels the first time and " + std::to_string(b.size()) +
                         " the second";
        return result;
    }

    std::vector<KernelMetricRecord> values;
    values.reserve(2 * a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        values.push_back({a[i].correlationId, counters::kDramRead, b[i].read});
        values.push_back({a[i].correlationId, counters::kDramWrite, b[i].write});
    }
    replaceKernelMetrics(target, run, values);
    result.kernels = static_cast<std::int64_t>(a.size());
    return result;
}

}  // namespace ws
