#include "record/dram_pass.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/counter_metrics.h"
#include "store/run_queries.h"
#include "store/sqlite_db.h"
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

std::int64_t internedId(sql::Db& db, const char* text) {
    sql::Statement insert(db, "INSERT OR IGNORE INTO strings (value) VALUES (?1)");
    insert.bind(1, std::string_view(text));
    insert.exec();
    sql::Statement select(db, "SELECT id FROM strings WHERE value = ?1");
    select.bind(1, std::string_view(text));
    select.step();
    return select.int64(0);
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

    sql::Db& db = target.db();
    sql::Transaction tx(db);
    const std::int64_t readId = internedId(db, counters::kDramRead);
    const std::int64_t writeId = internedId(db, counters::kDramWrite);
    sql::Statement remove(db,
                          "DELETE FROM kernel_metrics WHERE run_id = ?1 AND correlation_id = ?2 "
                          "AND metric_id IN (?3, ?4)");
    sql::Statement insert(db,
                          "INSERT INTO kernel_metrics (run_id, correlation_id, metric_id, value) "
                          "VALUES (?1, ?2, ?3, ?4)");
    for (std::size_t i = 0; i < a.size(); ++i) {
        remove.bind(1, run);
        remove.bind(2, a[i].correlationId);
        remove.bind(3, readId);
        remove.bind(4, writeId);
        remove.exec();
        for (auto [metric, value] :
             {std::pair{readId, b[i].read}, std::pair{writeId, b[i].write}}) {
            insert.bind(1, run);
            insert.bind(2, a[i].correlationId);
            insert.bind(3, metric);
            insert.bind(4, value);
            insert.exec();
        }
    }
    tx.commit();
    result.kernels = static_cast<std::int64_t>(a.size());
    return result;
}

}  // namespace ws
