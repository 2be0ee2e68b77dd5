#include "copied_values.h"

#include <string>
#include <vector>

#include "model/value_limits.h"
#include "store/store_error.h"
#include "util/text.h"

namespace ws {

namespace {

// A time column that must lie in 0 .. 2100-01-01 (value_limits.h), and,
// where the row also has an end, a span no longer than a year that does not
// end before it starts.
struct TimeColumns {
    const char* table;
    const char* start;
    const char* end;       // nullptr: a point in time
    const char* rowName;   // "the run", or what precedes the row's id
    const char* idColumn;  // the id a user can find the row by
};

constexpr TimeColumns kTimes[] = {
    {"runs", "started_at", "ended_at", "the run", "id"},
    {"requests", "start_ns", "end_ns", "request", "request_id"},
    {"tokens", "time_ns", nullptr, "a token of request", "request_id"},
    {"samples", "time_ns", nullptr, "sample row", "rowid"},
    {"overheads", "start_ns", "end_ns", "overhead row", "rowid"},
    {"collective_calls", "start_ns", "end_ns", "collective call row", "rowid"},
    {"graph_nodes", "time_ns", nullptr, "graph node row", "rowid"},
    {"gpu_metric_chunks", "first_start_ns", "last_end_ns", "GPU metric chunk row", "rowid"},
};

[[noreturn]] void refuse(const std::string& what) {
    throw StoreError(StoreError::Kind::Damaged, what);
}

bool isRunsTable(const TimeColumns& t) {
    return std::string(t.table) == "runs";
}

std::string rowOf(const TimeColumns& t, sql::Statement& st) {
    return std::string(t.rowName) + (isRunsTable(t) ? "" : " " + st.text(0));
}

}  // namespace

void checkCopiedNumbers(sql::Db& db, RunId from) {
    using limits::kLatestTimeNs;
    using limits::kLongestSpanNs;
    for (const TimeColumns& t : kTimes) {
        std::string where = "(" + std::string(t.start) + " < 0 OR " + t.start + " > ?2";
        if (t.end)
            where += std::string(" OR ") + t.end + " < " + t.start + " OR " + t.end + " - " +
                     t.start + " > ?3";
        where += ")";
        sql::Statement st(db, std::string("SELECT ") + t.idColumn + ", " + t.start + ", " +
                                  (t.end ? t.end : "NULL") + " FROM src.\"" + t.table +
                                  "\" WHERE " + (isRunsTable(t) ? "id" : "run_id") + " = ?1 AND " +
                                  where + " LIMIT 1");
        st.bind(1, from);
        st.bind(2, kLatestTimeNs);
        if (t.end) st.bind(3, kLongestSpanNs);
        if (!st.step()) continue;
        std::string why;
        if (t.end && !st.isNull(2)) {
            if (auto problem = limits::spanProblem(st.int64(1), st.int64(2))) why = *problem;
        }
        if (why.empty())
            why = std::string(t.start) + " " + std::to_string(st.int64(1)) +
                  " ns is outside 0 .. 2100-01-01";
        refuse(rowOf(t, st) + ": " + why);
    }
    sql::Statement dropped(db, "SELECT dropped_records FROM src.runs WHERE id = ?1");
    dropped.bind(1, from);
    if (dropped.step() && dropped.int64(0) < 0)
        refuse("the run: dropped_records " + std::to_string(dropped.int64(0)) + " is negative");
}

// Each TEXT column of the rows `where` selects: a value that is not valid
// UTF-8 is written again through a bound parameter, which stores it repaired
// (sqlite_db.cpp), as every other path into a store does.
void repairText(sql::Db& db, const std::string& table, const std::string& where, std::int64_t key) {
    std::vector<std::string> columns;
    {
        sql::Statement st(db, "SELECT name FROM pragma_table_info(?1, 'main') WHERE type = 'TEXT'");
        st.bind(1, std::string_view(table));
        while (st.step())
            columns.push_back(st.text(0));
    }
    for (const std::string& column : columns) {
        sql::Statement select(
            db, "SELECT rowid, \"" + column + "\" FROM main.\"" + table + "\" WHERE " + where);
        sql::Statement update(db, "UPDATE OR IGNORE main.\"" + table + "\" SET \"" + column +
                                      "\" = ?1 WHERE rowid = ?2");
        select.bind(1, key);
        std::vector<std::pair<std::int64_t, std::string>> bad;
        while (select.step())
            if (!select.isNull(1))
                if (std::string text = select.text(1); !isValidUtf8(text))
                    bad.emplace_back(select.int64(0), std::move(text));
        for (const auto& [rowid, text] : bad) {
            update.bind(1, std::string_view(text));
            update.bind(2, rowid);
            update.exec();
            update.reset();
        }
    }
}

}  // namespace ws
