// The closed lists of model/closed_lists.h against everything that spells
// them again: the store's CHECK constraints (after every migration), the
// workload config parser and the bundled configs. A kind added to one and not
// the others fails here instead of at a user's first `record`.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>

#include "config/workload_config.h"
#include "model/closed_lists.h"
#include "store/run_queries.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store_db.h"
#include "support/temp_dir.h"
#include "wire/event_codec.h"

namespace ws {
namespace {

// The quoted names of `column ... CHECK (column IN ('a','b'))` in a table's
// CREATE statement, as the store now holds it.
std::set<std::string> checkList(Store& store, const std::string& table, const std::string& column) {
    sql::Statement q(storeDb(store),
                     "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1");
    q.bind(1, table);
    EXPECT_TRUE(q.step()) << table;
    const std::string ddl = q.text(0);
    std::smatch m;
    const std::regex check(column + R"(\s+TEXT[^,]*CHECK\s*\(\s*)" + column +
                           R"(\s+IN\s*\(([^)]*)\))");
    EXPECT_TRUE(std::regex_search(ddl, m, check)) << ddl;
    std::set<std::string> names;
    const std::string list = m[1];
    const std::regex quoted("'([^']*)'");
    for (auto it = std::sregex_iterator(list.begin(), list.end(), quoted);
         it != std::sregex_iterator(); ++it)
        names.insert((*it)[1]);
    return names;
}

template <std::size_t N>
std::set<std::string> asSet(const std::array<const char*, N>& names) {
    return {names.begin(), names.end()};
}

TEST(ClosedLists, StoreChecksAcceptExactlyTheModelsLists) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    EXPECT_EQ(checkList(store, "workloads", "kind"), asSet(kWorkloadKindNames));
    EXPECT_EQ(checkList(store, "runs", "status"), asSet(kRunStatusNames));
}

TEST(ClosedLists, TheStoreChecksEveryEventChunkKindTheCodecWrites) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    sql::Statement q(
        storeDb(store),
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'event_chunks'");
    ASSERT_TRUE(q.step());
    const std::string ddl = q.text(0);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        ddl, m, std::regex(R"(kind\s+INTEGER[^,]*BETWEEN\s+(\d+)\s+AND\s+(\d+))")))
        << ddl;
    EXPECT_EQ(std::stoi(m[1]), static_cast<int>(codec::kFirstChunkKind));
    EXPECT_EQ(std::stoi(m[2]), static_cast<int>(codec::kLastChunkKind));
}

TEST(ClosedLists, EveryWorkloadKindCanBeRecordedAndReadBack) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    for (const char* kind : kWorkloadKindNames) {
        NewRun nr;
        nr.label = kind;
        nr.workload = WorkloadInfo{"w", kind, kind};
        RunId run = store.beginRun(nr);
        store.finishRun(run, RunStatus::Ok);
        auto w = runWorkload(store, run);
        ASSERT_TRUE(w) << kind;
        EXPECT_EQ(w->kind, kind);
        EXPECT_EQ(toString(*workloadKindFromString(kind)), std::string(kind));
    }
}

TEST(ClosedLists, ConfigsTakeTheConfigurableKindsAndRefuseImported) {
    for (std::size_t i = 0; i < kWorkloadKindNames.size(); ++i) {
        const std::string kind = kWorkloadKindNames[i];
        auto parsed = parseWorkloadConfig("name = \"x\"\nkind = \"" + kind + "\"\n", "k.toml");
        const bool kindRefused =
            std::any_of(parsed.errors.begin(), parsed.errors.end(),
                        [](const ConfigError& e) { return e.field == "kind"; });
        EXPECT_EQ(kindRefused, i >= kConfigurableWorkloadKinds) << kind;
    }
}

// Every bundled config names a kind the store takes.
TEST(ClosedLists, BundledConfigsNameKindsTheStoreTakes) {
    int seen = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(WARPSCOPE_SOURCE_DIR "/resources/workloads")) {
        if (entry.path().extension() != ".toml") continue;
        auto parsed = loadWorkloadConfig(entry.path().string());
        ASSERT_TRUE(parsed.config) << entry.path();
        const std::string kind = toString(parsed.config->kind);
        EXPECT_TRUE(asSet(kWorkloadKindNames).count(kind)) << entry.path() << ": " << kind;
        ++seen;
    }
    EXPECT_GT(seen, 5);
}

// docs/schema.md's table names the lists as the store takes them.
TEST(ClosedLists, SchemaDocListsThem) {
    std::ifstream in(WARPSCOPE_SOURCE_DIR "/docs/schema.md");
    std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto row = [&](const std::string& table) {
        const auto at = doc.find("| `" + table + "` |");
        EXPECT_NE(at, std::string::npos) << table;
        return doc.substr(at, doc.find('\n', at) - at);
    };
    auto listed = [](const std::string& line, const std::string& column) {
        // "`kind` (a, b, c: ..." → {a, b, c}
        const auto open = line.find("`" + column + "` (");
        std::set<std::string> names;
        if (open == std::string::npos) return names;
        const auto from = line.find('(', open) + 1;
        const std::string list = line.substr(from, line.find_first_of(":)", from) - from);
        std::stringstream items(list);
        for (std::string item; std::getline(items, item, ',');)
            names.insert(item.substr(item.find_first_not_of(' ')));
        return names;
    };
    EXPECT_EQ(listed(row("workloads"), "kind"), asSet(kWorkloadKindNames));
    EXPECT_EQ(listed(row("runs"), "status"), asSet(kRunStatusNames));
}

}  // namespace
}  // namespace ws
