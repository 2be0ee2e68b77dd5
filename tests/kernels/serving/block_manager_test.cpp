// The KV pool's bookkeeping: blocks handed out whole, block tables grown to
// cover positions, and every misuse of release refused before it corrupts
// the pool.
#include <gtest/gtest.h>

#include <stdexcept>

#include "serving/block_manager.h"

namespace ws::serving {
namespace {

TEST(BlockManager, GrowsTablesBlockByBlock) {
    BlockManager pool(4, 16);
    EXPECT_EQ(pool.numFree(), 4);
    BlockTable t;
    ASSERT_TRUE(pool.grow(t, 1));
    EXPECT_EQ(t.size(), 1u);
    ASSERT_TRUE(pool.grow(t, 16));  // still one block
    EXPECT_EQ(t.size(), 1u);
    ASSERT_TRUE(pool.grow(t, 17));
    EXPECT_EQ(t.size(), 2u);
    EXPECT_EQ(pool.numUsed(), 2);
    EXPECT_TRUE(pool.inUse(t[0]));
    EXPECT_NE(t[0], t[1]);
}

TEST(BlockManager, RefusesWhatThePoolCannotHoldAndChangesNothing) {
    BlockManager pool(3, 4);
    BlockTable a;
    ASSERT_TRUE(pool.grow(a, 8));
    BlockTable b{};
    EXPECT_FALSE(pool.grow(b, 9));  // needs 3, 1 free
    EXPECT_TRUE(b.empty());
    EXPECT_EQ(pool.numFree(), 1);
    EXPECT_TRUE(pool.grow(b, 4));
    EXPECT_EQ(pool.numFree(), 0);
}

TEST(BlockManager, ReleaseReturnsEveryBlock) {
    BlockManager pool(8, 16);
    BlockTable a, b;
    ASSERT_TRUE(pool.grow(a, 40));
    ASSERT_TRUE(pool.grow(b, 20));
    EXPECT_EQ(pool.numUsed(), 5);
    pool.release(a);
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(pool.numUsed(), 2);
    pool.release(b);
    EXPECT_EQ(pool.numFree(), 8);
}

TEST(BlockManager, DoubleFreeIsRefusedBeforeAnythingChanges) {
    BlockManager pool(4, 16);
    BlockTable a;
    ASSERT_TRUE(pool.grow(a, 32));
    BlockTable copy = a;
    pool.release(a);
    EXPECT_THROW(pool.release(copy), std::logic_error);
    EXPECT_EQ(pool.numFree(), 4);  // not returned twice

    BlockTable b;
    ASSERT_TRUE(pool.grow(b, 16));
    BlockTable twice{b[0], b[0]};
    EXPECT_THROW(pool.release(twice), std::logic_error);
    EXPECT_EQ(pool.numUsed(), 1);
    EXPECT_TRUE(pool.inUse(b[0]));  // still handed out after the refused release
    BlockTable foreign{99};
    EXPECT_THROW(pool.release(foreign), std::logic_error);
    pool.release(b);
    EXPECT_EQ(pool.numFree(), 4);
}

TEST(BlockManager, RefusesAnEmptyPool) {
    EXPECT_THROW(BlockManager(0, 16), std::invalid_argument);
    EXPECT_THROW(BlockManager(4, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ws::serving
