// Continuous batching on a paged KV cache: admission under the sequence and
// token limits, chunked prefill, preemption by recompute and its resume, and
// block accounting under a long randomized request stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

#include "serving/scheduler.h"

namespace ws::serving {
namespace {

constexpr TokenId kEos = 256;

EngineConfig limits(int maxNumSeqs, int budget, int numBlocks, int blockSize, int maxModelLen) {
    EngineConfig c;
    c.maxNumSeqs = maxNumSeqs;
    c.maxNumBatchedTokens = budget;
    c.numBlocks = numBlocks;
    c.blockSize = blockSize;
    c.maxModelLen = maxModelLen;
    return c;
}

std::vector<TokenId> prompt(int length, TokenId first = 1) {
    std::vector<TokenId> p(static_cast<std::size_t>(length));
    std::iota(p.begin(), p.end(), first);
    return p;
}

SamplingParams maxTokens(int n, bool ignoreEos = true) {
    SamplingParams s;
    s.maxTokens = n;
    s.ignoreEos = ignoreEos;
    s.temperature = 0;
    return s;
}

// Sampled tokens for a plan: `token` for every sampling entry.
std::vector<TokenId> sampleAll(const StepPlan& plan, TokenId token = 7) {
    return std::vector<TokenId>(static_cast<std::size_t>(plan.numSampled()), token);
}

TEST(Scheduler, AdmitsNoMoreThanMaxNumSeqs) {
    Scheduler s(limits(2, 64, 64, 16, 64), kEos);
    for (SeqId id = 1; id <= 3; ++id)
        s.add(id, prompt(4), maxTokens(8), 0);
    StepPlan plan = s.schedule();
    ASSERT_EQ(plan.seqs.size(), 2u);
    EXPECT_EQ(plan.seqs[0].seq, 1);
    EXPECT_EQ(plan.seqs[1].seq, 2);
    EXPECT_TRUE(plan.seqs[0].prefill);
    EXPECT_TRUE(plan.seqs[0].sample);
    EXPECT_EQ(plan.stats.running, 2);
    EXPECT_EQ(plan.stats.waiting, 1);
    EXPECT_EQ(plan.stats.prefillTokens, 8);
    EXPECT_EQ(plan.stats.prefillSeqs, 2);
    s.update(plan, sampleAll(plan));

    plan = s.schedule();  // both decode; the third still waits for a free slot
    ASSERT_EQ(plan.seqs.size(), 2u);
    EXPECT_FALSE(plan.seqs[0].prefill);
    EXPECT_EQ(plan.seqs[0].start, 4);
    EXPECT_EQ(plan.seqs[0].tokens, std::vector<TokenId>{7});
    EXPECT_EQ(plan.stats.decodeTokens, 2);
    EXPECT_EQ(plan.stats.decodeSeqs, 2);
    EXPECT_EQ(plan.stats.waiting, 1);
    EXPECT_EQ(plan.stats.step, 1);
}

// The step's attention work, its speed-of-light input: every scheduled
// sequence reads its whole context once, and a token at position p scores
// p + 1 keys.
TEST(Scheduler, StepStatsCountTheKvReadAndTheAttentionPairsOfChunksAndDecodes) {
    Scheduler s(limits(4, 8, 64, 4, 64), kEos);
    s.add(1, prompt(12), maxTokens(4), 0);
    StepPlan plan = s.schedule();  // chunk [0, 8): 8 positions read, 1 + 2 + ... + 8 pairs
    EXPECT_EQ(plan.stats.kvReadTokens, 8);
    EXPECT_EQ(plan.stats.attentionPairs, 36);
    s.update(plan, sampleAll(plan));
    s.add(2, prompt(3), maxTokens(4), 0);
    plan = s.schedule();  // chunk [8, 12) of 1: 12 read, 9 + 10 + 11 + 12; 2's [0, 3): 3, 1 + 2 + 3
    EXPECT_EQ(plan.stats.kvReadTokens, 12 + 3);
    EXPECT_EQ(plan.stats.attentionPairs, 42 + 6);
    s.update(plan, sampleAll(plan));
    plan = s.schedule();  // two decodes at positions 12 and 3: 13 and 4 keys each
    EXPECT_EQ(plan.stats.decodeTokens, 2);
    EXPECT_EQ(plan.stats.kvReadTokens, 13 + 4);
    EXPECT_EQ(plan.stats.attentionPairs, 13 + 4);
}

TEST(Scheduler, AFinishedSequenceLeavesAndTheNextIsAdmittedInTheNextStep) {
    Scheduler s(limits(1, 64, 64, 16, 64), kEos);
    s.add(1, prompt(4), maxTokens(1), 0);
    s.add(2, prompt(4), maxTokens(1), 0);
    StepPlan plan = s.schedule();
    ASSERT_EQ(plan.seqs.size(), 1u);
    auto updates = s.update(plan, sampleAll(plan));
    ASSERT_EQ(updates.size(), 1u);
    EXPECT_TRUE(updates[0].finished);
    EXPECT_EQ(updates[0].reason, FinishReason::Length);
    EXPECT_EQ(s.blocks().numUsed(), 0);  // freed at once
    EXPECT_EQ(s.find(1), nullptr);
    plan = s.schedule();
    ASSERT_EQ(plan.seqs.size(), 1u);
    EXPECT_EQ(plan.seqs[0].seq, 2);
}

TEST(Scheduler, AdmitsWithinTheTokenBudgetWithoutChunking) {
    EngineConfig c = limits(8, 16, 64, 16, 16);
    c.chunkedPrefill = false;
    Scheduler s(c, kEos);
    s.add(1, prompt(10), maxTokens(4), 0);
    s.add(2, prompt(10), maxTokens(4), 0);
    s.add(3, prompt(3), maxTokens(4), 0);
    StepPlan plan = s.schedule();
    // 10 fit, the second 10 do not; admission is in order, so 3 waits behind 2.
    ASSERT_EQ(plan.seqs.size(), 1u);
    EXPECT_EQ(plan.stats.prefillTokens, 10);
    EXPECT_EQ(plan.stats.waiting, 2);
    s.update(plan, sampleAll(plan));
    plan = s.schedule();  // one decode, the second prompt and the third: 14 of 16
    ASSERT_EQ(plan.seqs.size(), 3u);
    EXPECT_EQ(plan.stats.decodeTokens, 1);
    EXPECT_EQ(plan.stats.prefillTokens, 13);
    int total = 0;
    for (const auto& e : plan.seqs)
        total += static_cast<int>(e.tokens.size());
    EXPECT_LE(total, 16);
}

TEST(Scheduler, ChunksALongPromptOverSteps) {
    Scheduler s(limits(4, 8, 64, 4, 64), kEos);
    s.add(1, prompt(20), maxTokens(4), 0);
    std::vector<std::pair<int, int>> chunks;  // (start, count)
    StepPlan plan;
    for (int step = 0; step < 3; ++step) {
        plan = s.schedule();
        ASSERT_EQ(plan.seqs.size(), 1u);
        const auto& e = plan.seqs[0];
        EXPECT_TRUE(e.prefill);
        EXPECT_EQ(e.sample, step == 2);  // only the chunk that reaches the end samples
        EXPECT_GE(static_cast<int>(e.blocks.size()) * 4, e.end());
        chunks.emplace_back(e.start, static_cast<int>(e.tokens.size()));
        EXPECT_EQ(e.tokens.front(), e.start + 1);  // the prompt's own tokens, in order
        auto updates = s.update(plan, sampleAll(plan));
        EXPECT_EQ(updates.size(), step == 2 ? 1u : 0u);
    }
    EXPECT_EQ(chunks, (std::vector<std::pair<int, int>>{{0, 8}, {8, 8}, {16, 4}}));
    plan = s.schedule();
    ASSERT_EQ(plan.seqs.size(), 1u);
    EXPECT_FALSE(plan.seqs[0].prefill);
    EXPECT_EQ(plan.seqs[0].start, 20);
}

TEST(Scheduler, DecodesGoFirstAndAChunkTakesTheRestOfTheBudget) {
    Scheduler s(limits(4, 8, 64, 4, 64), kEos);
    s.add(1, prompt(3), maxTokens(10), 0);
    StepPlan plan = s.schedule();
    s.update(plan, sampleAll(plan));
    s.add(2, prompt(30), maxTokens(4), 0);
    plan = s.schedule();
    ASSERT_EQ(plan.seqs.size(), 2u);
    EXPECT_EQ(plan.seqs[0].seq, 1);
    EXPECT_FALSE(plan.seqs[0].prefill);
    EXPECT_EQ(plan.seqs[1].seq, 2);
    EXPECT_EQ(plan.seqs[1].tokens.size(), 7u);
    EXPECT_FALSE(plan.seqs[1].sample);
    EXPECT_EQ(plan.stats.prefillTokens, 7);
    EXPECT_EQ(plan.stats.decodeTokens, 1);
}

TEST(Scheduler, PreemptsTheNewestByRecomputeAndResumesIt) {
    // 4 blocks of 4 positions; two sequences of 6 prompt tokens hold 2 each.
    Scheduler s(limits(4, 64, 4, 4, 16), kEos);
    s.add(1, prompt(6, 1), maxTokens(4), 0);
    s.add(2, prompt(6, 100), maxTokens(4), 0);
    TokenId next = 50;
    auto run = [&](const StepPlan& plan) {
        std::vector<TokenId> sampled;
        for (const auto& e : plan.seqs)
            if (e.sample) sampled.push_back(next++);
        return s.update(plan, sampled);
    };
    StepPlan plan = s.schedule();
    ASSERT_EQ(plan.seqs.size(), 2u);
    EXPECT_EQ(plan.stats.kvBlocksUsed, 4);
    run(plan);            // 7 tokens each, 6 computed
    plan = s.schedule();  // position 6: still in block 1
    EXPECT_EQ(plan.stats.preemptions, 0);
    run(plan);            // 8 tokens, 7 computed
    plan = s.schedule();  // position 7: the last slot of block 1
    EXPECT_EQ(plan.stats.preemptions, 0);
    run(plan);  // 9 tokens, 8 computed: each needs a third block, none is free
    plan = s.schedule();
    EXPECT_EQ(plan.stats.preemptions, 1);
    EXPECT_EQ(plan.stats.preemptionsTotal, 1);
    ASSERT_EQ(plan.seqs.size(), 1u);  // nothing is admitted in a step that preempted
    EXPECT_EQ(plan.seqs[0].seq, 1);
    EXPECT_EQ(plan.stats.waiting, 1);
    const Sequence* preempted = s.find(2);
    ASSERT_NE(preempted, nullptr);
    EXPECT_FALSE(preempted->running);
    EXPECT_TRUE(preempted->blocks.empty());
    EXPECT_EQ(preempted->numComputed, 0);
    EXPECT_EQ(preempted->preemptions, 1);
    EXPECT_EQ(s.waiting().front(), 2);
    const std::vector<TokenId> soFar = preempted->tokens;  // prompt + 3 outputs
    EXPECT_EQ(soFar.size(), 9u);
    auto updates = run(plan);  // sequence 1 reaches max_tokens and frees its 3 blocks
    ASSERT_EQ(updates.size(), 1u);
    EXPECT_TRUE(updates[0].finished);
    EXPECT_EQ(s.blocks().numUsed(), 0);

    // Sequence 2 recomputes its prompt and output so far as one prefill and
    // samples its fourth output token at the end of it.
    plan = s.schedule();
    ASSERT_EQ(plan.seqs.size(), 1u);
    const auto& resumed = plan.seqs[0];
    EXPECT_EQ(resumed.seq, 2);
    EXPECT_TRUE(resumed.prefill);
    EXPECT_EQ(resumed.start, 0);
    EXPECT_EQ(resumed.tokens, soFar);
    EXPECT_TRUE(resumed.sample);
    EXPECT_EQ(resumed.outputIndex, 3);
    EXPECT_EQ(plan.stats.prefillTokens, 9);
    updates = run(plan);
    ASSERT_EQ(updates.size(), 1u);
    EXPECT_TRUE(updates[0].finished);
    EXPECT_EQ(updates[0].reason, FinishReason::Length);
    EXPECT_TRUE(s.idle());
    EXPECT_EQ(s.blocks().numUsed(), 0);
}

TEST(Scheduler, StopsAtEosUnlessIgnored) {
    Scheduler s(limits(4, 64, 16, 16, 64), kEos);
    s.add(1, prompt(2), maxTokens(10, false), 0);
    s.add(2, prompt(2), maxTokens(10, true), 0);
    StepPlan plan = s.schedule();
    auto updates = s.update(plan, sampleAll(plan, kEos));
    ASSERT_EQ(updates.size(), 2u);
    EXPECT_TRUE(updates[0].finished);
    EXPECT_EQ(updates[0].reason, FinishReason::Stop);
    EXPECT_FALSE(updates[1].finished);
    EXPECT_EQ(s.numRunning(), 1);
}

TEST(Scheduler, AbortFreesWaitingAndRunningSequences) {
    Scheduler s(limits(1, 64, 16, 16, 64), kEos);
    s.add(1, prompt(20), maxTokens(10), 0);
    s.add(2, prompt(20), maxTokens(10), 0);
    StepPlan plan = s.schedule();
    s.update(plan, sampleAll(plan));
    EXPECT_EQ(s.blocks().numUsed(), 2);
    EXPECT_TRUE(s.abort(2));  // waiting
    EXPECT_TRUE(s.abort(1));  // running
    EXPECT_FALSE(s.abort(1));
    EXPECT_TRUE(s.idle());
    EXPECT_EQ(s.blocks().numUsed(), 0);
}

TEST(Scheduler, RefusesRequestsThatCanNeverRunAndLimitsThatCannotWork) {
    Scheduler s(limits(4, 64, 16, 16, 64), kEos);
    EXPECT_THROW(s.add(1, {}, maxTokens(4), 0), std::invalid_argument);
    EXPECT_THROW(s.add(1, prompt(60), maxTokens(5), 0), std::invalid_argument);
    EXPECT_THROW(s.add(1, prompt(4), maxTokens(0), 0), std::invalid_argument);
    s.add(1, prompt(4), maxTokens(4), 0);
    EXPECT_THROW(s.add(1, prompt(4), maxTokens(4), 0), std::invalid_argument);
    EXPECT_THROW(Scheduler(limits(8, 4, 16, 16, 64), kEos), std::invalid_argument);  // budget
    EXPECT_THROW(Scheduler(limits(4, 64, 2, 16, 64), kEos), std::invalid_argument);  // pool
    EngineConfig noChunks = limits(4, 32, 16, 16, 64);
    noChunks.chunkedPrefill = false;
    EXPECT_THROW(Scheduler(noChunks, kEos), std::invalid_argument);
}

// What must hold after a step's update, whatever happened: every block is in
// at most one table and handed out exactly when it is in one; running
// sequences hold exactly the blocks their computed positions need; waiting
// ones hold none. Returns the first violation (plain checks: this runs after
// each of 100,000 steps).
std::string inconsistency(const Scheduler& s, const EngineConfig& c, std::vector<SeqId>& owner) {
    std::fill(owner.begin(), owner.end(), SeqId(-1));
    int held = 0;
    for (SeqId id : s.running()) {
        const Sequence* q = s.find(id);
        if (!q || !q->running) return "running sequence " + std::to_string(id) + " is not running";
        if (static_cast<int>(q->blocks.size()) != s.blocks().blocksFor(q->numComputed))
            return "sequence " + std::to_string(id) + " holds " + std::to_string(q->blocks.size()) +
                   " blocks for " + std::to_string(q->numComputed) + " positions";
        if (q->numComputed >= static_cast<int>(q->tokens.size()))
            return "sequence " + std::to_string(id) + " has no token left to compute";
        for (BlockId b : q->blocks) {
            if (b < 0 || b >= c.numBlocks) return "block id " + std::to_string(b) + " out of range";
            SeqId& o = owner[static_cast<std::size_t>(b)];
            if (o != -1)
                return "block " + std::to_string(b) + " is in the tables of " + std::to_string(o) +
                       " and " + std::to_string(id);
            o = id;
        }
        held += static_cast<int>(q->blocks.size());
    }
    for (SeqId id : s.waiting()) {
        const Sequence* q = s.find(id);
        if (!q || q->running || !q->blocks.empty() || q->numComputed != 0)
            return "waiting sequence " + std::to_string(id) + " holds KV";
    }
    if (held != s.blocks().numUsed())
        return std::to_string(s.blocks().numUsed()) + " blocks handed out, " +
               std::to_string(held) + " in tables (leaked)";
    for (int b = 0; b < c.numBlocks; ++b)
        if ((owner[static_cast<std::size_t>(b)] != -1) != s.blocks().inUse(b))
            return "block " + std::to_string(b) + ": in a table and free, or handed out to nobody";
    return {};
}

TEST(Scheduler, BlockAccountingHoldsOverARandomStreamOf100kSteps) {
    // A small pool against long sequences, so preemption is frequent; a small
    // budget, so prompts are chunked.
    const EngineConfig c = limits(8, 32, 28, 16, 160);
    Scheduler s(c, kEos);
    std::mt19937 rng(20261203);
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::vector<SeqId> owner(static_cast<std::size_t>(c.numBlocks));
    SeqId nextId = 1;
    std::set<SeqId> live;
    std::vector<SeqId> seen;
    std::vector<TokenId> sampled;
    std::int64_t chunked = 0, stops = 0, lengths = 0, aborts = 0, resumes = 0, steps = 0;
    while (steps < 100000) {  // steps that schedule something; idle turns do not count
        if (live.size() < 16 && uniform(0, 99) < 30) {
            int length = uniform(1, 100);
            SamplingParams p =
                maxTokens(uniform(1, std::min(60, c.maxModelLen - length)), uniform(0, 1) == 0);
            s.add(nextId, prompt(length, 0), p, 0);
            live.insert(nextId++);
        }
        if (!live.empty() && uniform(0, 99) < 2) {
            auto it = live.begin();
            std::advance(it, uniform(0, static_cast<int>(live.size()) - 1));
            ASSERT_TRUE(s.abort(*it));
            live.erase(it);
            ++aborts;
        }
        if (s.idle()) continue;
        StepPlan plan = s.schedule();
        ASSERT_FALSE(plan.empty()) << "no progress at step " << steps;
        int tokens = 0;
        bool covered = true;
        seen.clear();
        sampled.clear();
        for (const auto& e : plan.seqs) {
            seen.push_back(e.seq);
            covered = covered && static_cast<int>(e.blocks.size()) * c.blockSize >= e.end();
            tokens += static_cast<int>(e.tokens.size());
            if (e.prefill && !e.sample) ++chunked;
            if (e.prefill && e.outputIndex > 0 && e.start == 0) ++resumes;
            if (e.sample) sampled.push_back(uniform(0, 19) == 0 ? kEos : uniform(0, 255));
        }
        std::sort(seen.begin(), seen.end());
        ASSERT_TRUE(std::adjacent_find(seen.begin(), seen.end()) == seen.end())
            << "a sequence scheduled twice, step " << steps;
        ASSERT_TRUE(covered) << "a block table short of its positions, step " << steps;
        ASSERT_LE(static_cast<int>(plan.seqs.size()), c.maxNumSeqs);
        ASSERT_LE(plan.stats.running, c.maxNumSeqs);
        ASSERT_LE(tokens, c.maxNumBatchedTokens);
        ASSERT_EQ(plan.stats.prefillTokens + plan.stats.decodeTokens, tokens);
        ASSERT_EQ(plan.stats.kvBlocksUsed, s.blocks().numUsed());
        for (const auto& u : s.update(plan, sampled)) {
            if (!u.finished) continue;
            live.erase(u.seq);
            ++(u.reason == FinishReason::Stop ? stops : lengths);
        }
        std::string broken = inconsistency(s, c, owner);
        ASSERT_EQ(broken, "") << "after step " << steps;
        ++steps;
    }
    for (SeqId id : std::vector<SeqId>(live.begin(), live.end()))
        ASSERT_TRUE(s.abort(id));
    EXPECT_TRUE(s.idle());
    EXPECT_EQ(s.blocks().numUsed(), 0);
    EXPECT_EQ(s.blocks().numFree(), c.numBlocks);
    // The stream went through every path it is meant to check.
    EXPECT_GT(s.preemptionsTotal(), 100);
    EXPECT_GT(resumes, 100);
    EXPECT_GT(chunked, 100);
    EXPECT_GT(stops, 100);
    EXPECT_GT(lengths, 100);
    EXPECT_GT(aborts, 100);
}

}  // namespace
}  // namespace ws::serving
