#include "store/run_edits.h"

#include <map>
#include <string>

#include "store_db.h"

namespace ws {

namespace {

std::int64_t internedId(sql::Db& db, const std::string& text) {
    sql::Statement insert(db, "INSERT OR IGNORE INTO strings (value) VALUES (?1)");
    insert.bind(1, std::string_view(text));
    insert.exec();
    sql::Statement select(db, "SELECT id FROM strings WHERE value = ?1");
    select.bind(1, std::string_view(text));
    select.step();
    return select.int64(0);
}

}  // namespace

void replaceKernelMetrics(Store& store, RunId run, const std::vector<KernelMetricRecord>& values) {
    store.requireWritable("replace kernel metrics");
    sql::Db& db = storeDb(store);
    sql::Transaction tx(db);
    std::map<std::string, std::int64_t> metricIds;
    sql::Statement remove(db,
                          "DELETE FROM kernel_metrics WHERE run_id = ?1 AND correlation_id = ?2 "
                          "AND metric_id = ?3");
    sql::Statement insert(db,
                          "INSERT INTO kernel_metrics (run_id, correlation_id, metric_id, value) "
                          "VALUES (?1, ?2, ?3, ?4)");
    for (const auto& v : values) {
        auto [it, added] = metricIds.try_emplace(v.metric, 0);
        if (added) it->second = internedId(db, v.metric);
        remove.bind(1, run);
        remove.bind(2, v.correlationId);
        remove.bind(3, it->second);
        remove.exec();
        insert.bind(1, run);
        insert.bind(2, v.correlationId);
        insert.bind(3, it->second);
        insert.bind(4, v.value);
        insert.exec();
    }
    tx.commit();
}

}  // namespace ws
