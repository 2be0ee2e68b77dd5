// The GPU backend's step metadata, built on the CPU: decode rows first, slots
// from the block tables, prefill runs, samples in plan order, graph padding,
// the fixed device layout, and plans past the limits refused.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "serving/step_batch.h"

namespace ws::serving {
namespace {

StepLimits limits() {
    StepLimits l;
    l.maxTokens = 64;
    l.maxSeqs = 8;
    l.maxBlocksPerSeq = 4;
    l.blockSize = 16;
    return l;
}

ScheduledSeq prefill(SeqId id, int start, int count, BlockTable blocks, bool sample) {
    ScheduledSeq s;
    s.seq = id;
    s.start = start;
    for (int i = 0; i < count; ++i)
        s.tokens.push_back(100 + start + i);
    s.prefill = true;
    s.sample = sample;
    s.blocks = std::move(blocks);
    return s;
}

ScheduledSeq decode(SeqId id, int position, TokenId token, BlockTable blocks) {
    ScheduledSeq s;
    s.seq = id;
    s.start = position;
    s.tokens = {token};
    s.sample = true;
    s.blocks = std::move(blocks);
    s.temperature = 0.5;
    s.seed = 0x1234567890abcdefull;
    s.outputIndex = position;
    return s;
}

TEST(StepBatch, DecodeRowsComeFirstAndSamplesStayInPlanOrder) {
    StepPlan plan;
    plan.seqs.push_back(prefill(1, 16, 20, {7, 3, 5}, true));  // positions 16..35
    plan.seqs.push_back(decode(2, 17, 42, {2, 6}));
    plan.seqs.push_back(prefill(3, 0, 5, {1}, false));
    StepBatch b = buildStepBatch(plan, limits());
    ASSERT_EQ(b.decodeSeqs, 1);
    ASSERT_EQ(b.prefillSeqs, 2);
    ASSERT_EQ(b.tokens, 1 + 20 + 5);
    // Row 0: the decode token at position 17, block 6 offset 1.
    EXPECT_EQ(b.ids[0], 42);
    EXPECT_EQ(b.positions[0], 17);
    EXPECT_EQ(b.slots[0], 6 * 16 + 1);
    EXPECT_EQ(b.contextLens, (std::vector<std::int32_t>{18}));
    // Rows 1..20: sequence 1's chunk; position 31 is block 3's last slot, 32 block 5's first.
    EXPECT_EQ(b.rowStart, (std::vector<std::int32_t>{1, 21}));
    EXPECT_EQ(b.queries, (std::vector<std::int32_t>{20, 5}));
    EXPECT_EQ(b.firstPositions, (std::vector<std::int32_t>{16, 0}));
    EXPECT_EQ(b.positions[1], 16);
    EXPECT_EQ(b.slots[1], 3 * 16 + 0);
    EXPECT_EQ(b.slots[16], 3 * 16 + 15);
    EXPECT_EQ(b.slots[17], 5 * 16 + 0);
    EXPECT_EQ(b.ids[20], 100 + 35);
    EXPECT_EQ(b.slots[21], 1 * 16 + 0);
    EXPECT_EQ(b.maxQueries, 20);
    EXPECT_EQ(b.maxContext, 36);
    // Block tables by entry: decode, then the prefill chunks; rows zero-filled.
    EXPECT_EQ(b.blockTables, (std::vector<std::int32_t>{2, 6, 0, 0, 7, 3, 5, 0, 1, 0, 0, 0}));
    // Sampled: sequence 1 (its chunk's last row, 20), then sequence 2 (row 0).
    EXPECT_EQ(b.sampleRows, (std::vector<std::int32_t>{20, 0}));
    EXPECT_EQ(b.temperatures[1], 0.5f);
    EXPECT_EQ(b.seeds[1], 0x1234567890abcdefull);
    EXPECT_EQ(b.outputIndex[1], 17);
}

TEST(StepBatch, GraphPaddingStoresNothingAndSamplesLast) {
    StepPlan plan;
    plan.seqs.push_back(decode(1, 3, 9, {4}));
    plan.seqs.push_back(decode(2, 40, 8, {1, 2, 3}));
    StepBatch b = buildStepBatch(plan, limits(), 4);
    EXPECT_EQ(b.decodeSeqs, 4);
    EXPECT_EQ(b.paddedSeqs, 2);
    EXPECT_EQ(b.tokens, 4);
    EXPECT_EQ(b.slots, (std::vector<std::int32_t>{4 * 16 + 3, 3 * 16 + 8, -1, -1}));
    EXPECT_EQ(b.contextLens, (std::vector<std::int32_t>{4, 41, 1, 1}));
    EXPECT_EQ(b.sampleRows, (std::vector<std::int32_t>{0, 1, 2, 3}));
    EXPECT_EQ(b.sampled() - b.paddedSeqs, 2);
    EXPECT_THROW(buildStepBatch(plan, limits(), 9), std::invalid_argument);  // > maxSeqs
}

TEST(StepBatch, PlansPastTheLimitsAreRefused) {
    StepPlan tooLong;
    tooLong.seqs.push_back(prefill(1, 0, 65, {0, 1, 2, 3, 4}, true));
    EXPECT_THROW(buildStepBatch(tooLong, limits()), std::invalid_argument);
    StepPlan uncovered;
    uncovered.seqs.push_back(decode(1, 16, 1, {0}));  // position 16 needs a second block
    EXPECT_THROW(buildStepBatch(uncovered, limits()), std::invalid_argument);
    StepPlan mixedPadding;
    mixedPadding.seqs.push_back(prefill(1, 0, 4, {0}, true));
    EXPECT_THROW(buildStepBatch(mixedPadding, limits(), 2), std::invalid_argument);
}

TEST(StepBatch, PacksIntoTheFixedLayout) {
    StepPlan plan;
    plan.seqs.push_back(decode(1, 5, 77, {3}));
    plan.seqs.push_back(prefill(2, 0, 3, {2}, true));
    StepBatch b = buildStepBatch(plan, limits());
    StepMetaLayout layout(limits());
    std::vector<std::uint32_t> words(layout.total, 0xffffffffu);
    layout.pack(b, words.data());
    EXPECT_EQ(words[layout.ids], 77u);
    EXPECT_EQ(words[layout.slots], 3u * 16 + 5);
    EXPECT_EQ(words[layout.contextLens], 6u);
    EXPECT_EQ(words[layout.rowStart], 1u);
    EXPECT_EQ(words[layout.queries], 3u);
    EXPECT_EQ(words[layout.sampleRows], 0u);
    EXPECT_EQ(words[layout.sampleRows + 1], 3u);
    float t = 0;
    std::memcpy(&t, &words[layout.temperatures], sizeof t);
    EXPECT_EQ(t, 0.5f);
    EXPECT_EQ(words[layout.seeds], 0x90abcdefu);
    EXPECT_EQ(words[layout.seeds + 1], 0x12345678u);
    EXPECT_EQ(words[layout.blockTables], 3u);
    EXPECT_EQ(words[layout.blockTables + 4], 2u);  // the prefill entry's row
    EXPECT_EQ(layout.used(b), layout.blockTables + 2 * 4);
}

TEST(StepBatch, BucketsArePowersOfTwoThenTheLargest) {
    EXPECT_EQ(decodeBuckets(64), (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
    EXPECT_EQ(decodeBuckets(48), (std::vector<int>{1, 2, 4, 8, 16, 32, 48}));
    auto b = decodeBuckets(48);
    EXPECT_EQ(bucketFor(b, 3), 4);
    EXPECT_EQ(bucketFor(b, 33), 48);
    EXPECT_EQ(bucketFor(b, 49), 0);
}

}  // namespace
}  // namespace ws::serving
