// The injected library lives inside arbitrary CUDA processes: it must link no
// Qt (nor SQLite) and export nothing but its two injection entry points.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "support/run_process.h"

namespace ws {
namespace {

TEST(InjectLibrary, ExportsOnlyInjectionEntryPoints) {
    auto nm = testing::runProcess({"/usr/bin/nm", "-D", "--defined-only", WARPSCOPE_INJECT_PATH});
    ASSERT_EQ(nm.exitCode, 0) << nm.err;
    std::set<std::string> symbols;
    std::istringstream lines(nm.out);
    std::string addr, type, name;
    while (lines >> addr >> type >> name)
        symbols.insert(name);
    EXPECT_EQ(symbols, (std::set<std::string>{"InitializeInjection", "InitializeInjectionNvtx2"}));
}

TEST(InjectLibrary, LinksNoQtNoSqlite) {
    auto readelf = testing::runProcess({"/usr/bin/readelf", "-d", WARPSCOPE_INJECT_PATH});
    ASSERT_EQ(readelf.exitCode, 0) << readelf.err;
    EXPECT_EQ(readelf.out.find("Qt"), std::string::npos) << readelf.out;
    EXPECT_EQ(readelf.out.find("sqlite"), std::string::npos) << readelf.out;
    EXPECT_NE(readelf.out.find("libcupti"), std::string::npos);
}

}  // namespace
}  // namespace ws
