#include "store/bundle_table.h"

#include "store/schema.h"
#include "store/store_error.h"
#include "store_db.h"

namespace ws {

namespace {

constexpr const char* kBundleTable = R"sql(
CREATE TABLE bundle (
    version INTEGER NOT NULL,
    warpscope_version TEXT NOT NULL,
    source_host TEXT NOT NULL,
    source_store TEXT NOT NULL,
    source_run INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
)sql";

}  // namespace

void stampBundle(Store& bundle, const BundleStamp& stamp) {
    auto& db = storeDb(bundle);
    db.exec(kBundleTable);
    sql::Statement st(db, "INSERT INTO bundle VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    st.bind(1, stamp.version);
    st.bind(2, std::string_view(stamp.warpscopeVersion));
    st.bind(3, std::string_view(stamp.sourceHost));
    st.bind(4, std::string_view(stamp.sourceStore));
    st.bind(5, stamp.sourceRun);
    st.bind(6, stamp.createdAtNs);
    st.exec();
    db.exec("PRAGMA journal_mode = DELETE");
}

namespace {

bool hasBundleTable(sql::Db& probe, const std::string& path) {
    if (probe.queryInt("PRAGMA application_id") != schema::kApplicationId)
        throw StoreError(StoreError::Kind::Foreign, path + ": not a Warpscope store");
    return probe.queryInt(
               "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bundle'") > 0;
}

}  // namespace

bool hasBundleTable(const std::string& path) {
    sql::Db probe(path, sql::Db::Mode::Snapshot);
    return hasBundleTable(probe, path);
}

std::optional<BundleFile> readBundleFile(const std::string& path) {
    sql::Db probe(path, sql::Db::Mode::Snapshot);
    if (!hasBundleTable(probe, path)) return std::nullopt;
    BundleFile file;
    file.schemaVersion = static_cast<int>(probe.queryInt("PRAGMA user_version"));
    sql::Statement st(probe,
                      "SELECT version, warpscope_version, source_host, source_store, source_run, "
                      "created_at FROM bundle");
    if (st.step()) {
        BundleStamp s;
        s.version = st.int32(0);
        s.warpscopeVersion = st.text(1);
        s.sourceHost = st.text(2);
        s.sourceStore = st.text(3);
        s.sourceRun = st.int64(4);
        s.createdAtNs = st.int64(5);
        file.stamp = s;
    }
    return file;
}

}  // namespace ws
