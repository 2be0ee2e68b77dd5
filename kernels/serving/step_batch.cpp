#include "serving/step_batch.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ws::serving {

std::vector<int> decodeBuckets(int largest) {
    std::vector<int> buckets;
    for (int b = 1; b < largest; b *= 2)
        buckets.push_back(b);
    if (largest >= 1) buckets.push_back(largest);
    return buckets;
}

int bucketFor(const std::vector<int>& buckets, int seqs) {
    for (int b : buckets)
        if (b >= seqs) return b;
    return 0;
}

namespace {

[[noreturn]] void refuse(const std::string& why) {
    throw std::invalid_argument("step batch: " + why);
}

}  // namespace

StepBatch buildStepBatch(const StepPlan& plan, const StepLimits& limits, int padDecodeTo) {
    StepBatch b;
    const int bs = limits.blockSize;
    // Decode entries first (their rows are the decode attention's batch),
    // then prefill chunks; each group keeps plan order.
    std::vector<int> order, rowOf(plan.seqs.size());
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = 0; i < plan.seqs.size(); ++i)
            if (plan.seqs[i].prefill == (pass == 1)) order.push_back(static_cast<int>(i));
    for (const auto& s : plan.seqs) {
        if (!s.prefill && s.tokens.size() != 1) refuse("a decode entry holds one token");
        if (s.prefill) ++b.prefillSeqs;
    }
    const int realDecodes = static_cast<int>(plan.seqs.size()) - b.prefillSeqs;
    b.decodeSeqs = std::max(realDecodes, padDecodeTo);
    b.paddedSeqs = b.decodeSeqs - realDecodes;
    if (padDecodeTo > 0 && b.prefillSeqs > 0) refuse("only a pure-decode step is padded");
    if (b.entries() > limits.maxSeqs)
        refuse(std::to_string(b.entries()) + " sequences, more than " +
               std::to_string(limits.maxSeqs));
    b.blockTables.assign(std::size_t(b.entries()) * limits.maxBlocksPerSeq, 0);

    int entry = 0;
    auto addRows = [&](const ScheduledSeq& s) {
        if (static_cast<int>(s.blocks.size()) > limits.maxBlocksPerSeq)
            refuse("a block table of " + std::to_string(s.blocks.size()) + " blocks, more than " +
                   std::to_string(limits.maxBlocksPerSeq));
        if (s.end() > static_cast<int>(s.blocks.size()) * bs)
            refuse("position " + std::to_string(s.end() - 1) + " is past its block table");
        std::copy(s.blocks.begin(), s.blocks.end(),
                  b.blockTables.begin() + std::ptrdiff_t(entry) * limits.maxBlocksPerSeq);
        for (std::size_t t = 0; t < s.tokens.size(); ++t) {
            const int pos = s.start + static_cast<int>(t);
            b.ids.push_back(s.tokens[t]);
            b.positions.push_back(pos);
            b.slots.push_back(s.blocks[std::size_t(pos / bs)] * bs + pos % bs);
        }
        b.maxContext = std::max(b.maxContext, s.end());
        ++entry;
    };
    for (int k = 0; k < realDecodes; ++k) {
        const auto& s = plan.seqs[std::size_t(order[std::size_t(k)])];
        rowOf[std::size_t(order[std::size_t(k)])] = static_cast<int>(b.ids.size());
        addRows(s);
        b.contextLens.push_back(s.end());
    }
    for (int k = 0; k < b.paddedSeqs; ++k) {  // one position of block 0, never stored
        b.ids.push_back(0);
        b.positions.push_back(0);
        b.slots.push_back(-1);
        b.contextLens.push_back(1);
        ++entry;
    }
    for (std::size_t k = std::size_t(realDecodes); k < order.size(); ++k) {
        const auto& s = plan.seqs[std::size_t(order[k])];
        const int first = static_cast<int>(b.ids.size());
        b.rowStart.push_back(first);
        b.queries.push_back(static_cast<int>(s.tokens.size()));
        b.firstPositions.push_back(s.start);
        b.maxQueries = std::max(b.maxQueries, static_cast<int>(s.tokens.size()));
        addRows(s);
        rowOf[std::size_t(order[k])] = static_cast<int>(b.ids.size()) - 1;  // its last row
    }
    b.tokens = static_cast<int>(b.ids.size());
    if (b.tokens > limits.maxTokens)
        refuse(std::to_string(b.tokens) + " tokens, more than " + std::to_string(limits.maxTokens));
    for (std::size_t i = 0; i < plan.seqs.size(); ++i) {
        const auto& s = plan.seqs[i];
        if (!s.sample) continue;
        b.sampleRows.push_back(rowOf[i]);
        b.outputIndex.push_back(s.outputIndex);
        b.temperatures.push_back(static_cast<float>(s.temperature));
        b.seeds.push_back(s.seed);
    }
    for (int k = 0; k < b.paddedSeqs; ++k) {  // a graph samples every row of its bucket
        b.sampleRows.push_back(realDecodes + k);
        b.outputIndex.push_back(0);
        b.temperatures.push_back(0);
        b.seeds.push_back(0);
    }
    return b;
}

StepMetaLayout::StepMetaLayout(const StepLimits& l) : maxBlocksPerSeq(l.maxBlocksPerSeq) {
    std::size_t at = 0;
    auto take = [&](std::size_t words) {
        std::size_t here = at;
        at += words;
        return here;
    };
    const auto tokens = std::size_t(l.maxTokens), seqs = std::size_t(l.maxSeqs);
    ids = take(tokens);
    positions = take(tokens);
    slots = take(tokens);
    contextLens = take(seqs);
    rowStart = take(seqs);
    queries = take(seqs);
    firstPositions = take(seqs);
    sampleRows = take(seqs);
    outputIndex = take(seqs);
    temperatures = take(seqs);
    seeds = take(2 * seqs);
    blockTables = take(seqs * std::size_t(l.maxBlocksPerSeq));
    total = at;
}

void StepMetaLayout::pack(const StepBatch& b, std::uint32_t* words) const {
    auto put = [&](std::size_t offset, const std::vector<std::int32_t>& v) {
        if (!v.empty()) std::memcpy(words + offset, v.data(), v.size() * sizeof(std::int32_t));
    };
    put(ids, b.ids);
    put(positions, b.positions);
    put(slots, b.slots);
    put(contextLens, b.contextLens);
    put(rowStart, b.rowStart);
    put(queries, b.queries);
    put(firstPositions, b.firstPositions);
    put(sampleRows, b.sampleRows);
    put(outputIndex, b.outputIndex);
    for (std::size_t i = 0; i < b.temperatures.size(); ++i)
        std::memcpy(words + temperatures + i, &b.temperatures[i], sizeof(float));
    for (std::size_t i = 0; i < b.seeds.size(); ++i) {
        words[seeds + 2 * i] = static_cast<std::uint32_t>(b.seeds[i]);
        words[seeds + 2 * i + 1] = static_cast<std::uint32_t>(b.seeds[i] >> 32);
    }
    put(blockTables, b.blockTables);
}

}  // namespace ws::serving
