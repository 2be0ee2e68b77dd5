// A step plan as the GPU backend runs it: one varlen batch of token rows
// (decode tokens first, one row per decoding sequence, then each prefill
// chunk as a run of rows), with per-row positions and KV slots, per-sequence
// context lengths and block tables, and the rows to sample in plan order.
// Plain C++ (tested without a GPU); the backend copies it to the device in
// one piece, laid out by StepMetaLayout at fixed offsets, so a captured CUDA
// graph replays with the next step's contents.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "serving/step_plan.h"

namespace ws::serving {

struct StepLimits {
    int maxTokens = 0;        // rows of one step (max_num_batched_tokens, or the largest bucket)
    int maxSeqs = 0;          // sequences of one step (max_num_seqs, or the largest bucket)
    int maxBlocksPerSeq = 0;  // the block tables' row length (max_model_len / block_size)
    int blockSize = 16;
};

// Batch sizes a decode graph is captured for (vLLM's buckets, coarser): the
// powers of two below `largest` (1, 2, 4, … 128 …), then `largest` itself.
std::vector<int> decodeBuckets(int largest);
// The smallest bucket holding `seqs`; 0 when none does.
int bucketFor(const std::vector<int>& buckets, int seqs);

struct StepBatch {
    int decodeSeqs = 0;   // rows 0 … decodeSeqs − 1, padding included
    int paddedSeqs = 0;   // of which padding (a graph bucket's unused rows)
    int prefillSeqs = 0;  // entries decodeSeqs … decodeSeqs + prefillSeqs − 1
    int tokens = 0;       // rows
    int maxQueries = 0;   // the longest prefill chunk
    int maxContext = 0;   // the longest sequence after the step

    // Per row.
    std::vector<std::int32_t> ids, positions, slots;  // slot −1: a padding row, not stored
    // Per entry, decode entries first.
    std::vector<std::int32_t> contextLens;                        // decode entries
    std::vector<std::int32_t> rowStart, queries, firstPositions;  // prefill entries
    std::vector<std::int32_t> blockTables;  // entries × maxBlocksPerSeq, zero-filled
    // Per sampled token, in plan order (padding rows last).
    std::vector<std::int32_t> sampleRows, outputIndex;
    std::vector<float> temperatures;
    std::vector<std::uint64_t> seeds;

    int entries() const { return decodeSeqs + prefillSeqs; }
    int sampled() const { return static_cast<int>(sampleRows.size()); }
};

// `padDecodeTo` > 0 (a pure-decode step run by a graph): pads the decode
// entries to that many with rows that store nothing and read one position
// of block 0. Throws std::invalid_argument when the plan exceeds the limits
// (more rows or sequences, a block table longer than a row, a position its
// table does not cover).
StepBatch buildStepBatch(const StepPlan& plan, const StepLimits& limits, int padDecodeTo = 0);

// Fixed offsets (in 32-bit words) of the fields in the device copy; seeds
// take two words each (low, high), temperatures their float bits.
struct StepMetaLayout {
    explicit StepMetaLayout(const StepLimits& limits);
    std::size_t ids, positions, slots, contextLens, rowStart, queries, firstPositions, sampleRows,
        outputIndex, temperatures, seeds, blockTables, total;
    int maxBlocksPerSeq;
    // Words to copy for a batch: everything before the block tables and its rows.
    std::size_t used(const StepBatch& batch) const {
        return blockTables + std::size_t(batch.entries()) * std::size_t(maxBlocksPerSeq);
    }
    // Writes `batch` into `words` (total() long) at these offsets.
    void pack(const StepBatch& batch, std::uint32_t* words) const;
};

}  // namespace ws::serving
