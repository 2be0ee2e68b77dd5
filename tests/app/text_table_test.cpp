#include "cli/text_table.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

namespace ws::cli {
namespace {

TEST(TextTable, AColumnIsAsWideAsItsWidestCellSoLongValuesNeverTouch) {
    TextTable t({"time%", "total", "name"});
    t.add({"99.3", "45 min 34 s", "cudaLaunchKernel"});
    t.add({"0.7", "18.3 µs", "cuKernelGetName"});
    std::ostringstream out;
    t.print(out);
    // "µ" is one column: "18.3 µs" lines up under "45 min 34 s".
    EXPECT_EQ(out.str(),
              "  time%        total  name\n"
              "   99.3  45 min 34 s  cudaLaunchKernel\n"
              "    0.7      18.3 µs  cuKernelGetName\n");
}

TEST(TextTable, ARowOfTheWrongWidthIsRefused) {
    TextTable t({"a", "b"});
    EXPECT_THROW(t.add({"1"}), std::logic_error);
}

}  // namespace
}  // namespace ws::cli
