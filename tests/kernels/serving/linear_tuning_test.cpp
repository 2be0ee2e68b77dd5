#include "serving/linear_tuning.h"

#include <gtest/gtest.h>

namespace ws::serving {
namespace {

TEST(LinearTuning, EachRowCountTakesTheChoiceOfTheSmallestMeasuredBucketAtOrAboveIt) {
    LinearTuning t;
    t.record(4096, 4096, 1, 10.0, 12.0);  // own faster
    t.record(4096, 4096, 2, 10.0, 10.0);  // equal: own stays
    t.record(4096, 4096, 8, 10.0, 8.0);   // cuBLAS faster
    t.record(4096, 4096, 16, 10.0, 9.8);  // within the margin: own stays
    EXPECT_FALSE(t.useCublas(4096, 4096, 1));
    EXPECT_FALSE(t.useCublas(4096, 4096, 2));
    EXPECT_TRUE(t.useCublas(4096, 4096, 3));  // padded up to the bucket of 8
    EXPECT_TRUE(t.useCublas(4096, 4096, 8));
    EXPECT_FALSE(t.useCublas(4096, 4096, 9));
    EXPECT_FALSE(t.useCublas(4096, 4096, 16));
    // Past the largest bucket (a prefill step) and for other shapes: never.
    EXPECT_FALSE(t.useCublas(4096, 4096, 2048));
    EXPECT_FALSE(t.useCublas(4096, 14336, 8));
}

TEST(LinearTuning, DescribesTheChoicePerShape) {
    LinearTuning t;
    EXPECT_TRUE(t.empty());
    t.record(14336, 4096, 1, 1, 2);
    t.record(14336, 4096, 4, 2, 1);
    t.record(14336, 4096, 8, 2, 1);
    t.record(128256, 4096, 1, 1, 2);
    EXPECT_FALSE(t.empty());
    auto lines = t.describe();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "14336×4096: cuBLAS at rows 4, 8; own rung at rows 1");
    EXPECT_EQ(lines[1], "128256×4096: own rung at rows 1");
}

}  // namespace
}  // namespace ws::serving
