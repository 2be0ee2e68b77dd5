#include "serving/engine_config.h"

#include <stdexcept>
#include <string>

namespace ws::serving {

namespace {
void require(bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument(message);
}
}  // namespace

void EngineConfig::validate() const {
    require(maxNumSeqs >= 1, "max_num_seqs must be at least 1");
    require(blockSize >= 1, "block_size must be at least 1");
    require(numBlocks >= 1, "num_blocks must be at least 1");
    require(maxModelLen >= 2, "max_model_len must be at least 2 (one prompt, one output token)");
    require(maxWaiting >= 0, "max_waiting must not be negative");
    require(maxNumBatchedTokens >= maxNumSeqs,
            "max_num_batched_tokens (" + std::to_string(maxNumBatchedTokens) +
                ") must be at least max_num_seqs (" + std::to_string(maxNumSeqs) +
                "): every running sequence decodes one token per step");
    require(static_cast<long long>(numBlocks) * blockSize >= maxModelLen,
            "num_blocks x block_size (" +
                std::to_string(static_cast<long long>(numBlocks) * blockSize) +
                " tokens) must hold one sequence of max_model_len (" + std::to_string(maxModelLen) +
                ")");
    require(chunkedPrefill || maxNumBatchedTokens >= maxModelLen,
            "without chunked prefill, max_num_batched_tokens (" +
                std::to_string(maxNumBatchedTokens) + ") must be at least max_model_len (" +
                std::to_string(maxModelLen) + "): a prompt is computed in one step");
}

}  // namespace ws::serving
