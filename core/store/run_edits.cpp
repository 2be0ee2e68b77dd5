#include "store/run_edits.h"

#include "store/store_writer.h"
#include "store_db.h"

namespace ws {

void replaceKernelMetrics(Store& store, RunId run, const std::vector<KernelMetricRecord>& values) {
    store.requireWritable("replace kernel metrics");
    sql::Db& db = storeDb(store);
    sql::Transaction tx(db);
    sql::Statement remove(db,
                          "DELETE FROM kernel_metrics WHERE run_id = ?1 AND correlation_id = ?2 "
                          "AND metric_id = (SELECT id FROM strings WHERE value = ?3)");
    for (const auto& v : values) {
        remove.bind(1, run);
        remove.bind(2, v.correlationId);
        remove.bind(3, std::string_view(v.metric));
        remove.exec();
    }
    // Written as every record is: names interned, values checked.
    StoreWriter writer(store, run);
    for (const auto& v : values)
        writer.add(v);
    writer.flush();
    tx.commit();
}

}  // namespace ws
