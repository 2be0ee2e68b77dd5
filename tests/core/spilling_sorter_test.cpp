// The external sort gives what std::sort gives, whether everything fits in
// memory or most of it went through the temporary file in many batches.
#include "util/spilling_sorter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <tuple>

namespace ws {
namespace {

struct Item {
    std::uint32_t thread;
    std::int64_t start, end;
};

struct ByThreadThenStart {
    bool operator()(const Item& a, const Item& b) const {
        return std::tie(a.thread, a.start, b.end) < std::tie(b.thread, b.start, a.end);
    }
};

TEST(SpillingSorter, MergedBatchesEqualOneSortAtEveryMemoryLimit) {
    std::mt19937_64 random(7);
    std::vector<Item> items;
    for (int i = 0; i < 20'000; ++i) {
        std::int64_t start = static_cast<std::int64_t>(random() % 5'000);
        items.push_back({static_cast<std::uint32_t>(random() % 4), start,
                         start + static_cast<std::int64_t>(random() % 100)});
    }
    auto expected = items;
    std::stable_sort(expected.begin(), expected.end(), ByThreadThenStart{});
    for (std::size_t limit : {1u, 7u, 4096u, 4097u, 19'999u, 20'000u, 1'000'000u}) {
        SCOPED_TRACE("limit " + std::to_string(limit));
        SpillingSorter<Item, ByThreadThenStart> sorter(limit);
        for (const auto& item : items)
            sorter.push(item);
        EXPECT_EQ(sorter.size(), items.size());
        EXPECT_EQ(sorter.spilledBatches(), limit >= items.size() + 1 ? 0u : items.size() / limit);
        std::vector<Item> got;
        sorter.drain([&](const Item& item) { got.push_back(item); });
        ASSERT_EQ(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            // Equal keys may come in any order: compare the keys.
            ASSERT_FALSE(ByThreadThenStart{}(got[i], expected[i]) ||
                         ByThreadThenStart{}(expected[i], got[i]))
                << "at " << i;
        }
        EXPECT_EQ(sorter.size(), 0u);
    }
}

}  // namespace
}  // namespace ws
