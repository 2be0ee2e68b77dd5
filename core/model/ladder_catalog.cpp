#include "model/ladder_catalog.h"

namespace ws {

const std::vector<LadderSpec>& ladderCatalog() {
    static const std::vector<LadderSpec> catalog = {
        {"gemm_bf16",
         {"naive", "tiled", "regblock", "mma", "mma_wide", "wgmma", "cublas"},
         "cublas",
         {{"m", 4096}, {"n", 4096}, {"k", 4096}}},
        {"gemv_bf16",
         {"naive", "vectorized", "splitk", "mma", "int8", "cublas"},
         "cublas",
         {{"batch", 1}, {"n", 8192}, {"k", 8192}}},
        {"rmsnorm", {"naive", "fused"}, "", {{"rows", 16384}, {"cols", 8192}}},
        {"softmax", {"naive", "fused"}, "", {{"rows", 4096}, {"cols", 32768}}},
        {"silu_mul", {"naive", "fused"}, "", {{"rows", 4096}, {"cols", 14336}}},
        {"rope", {"naive", "fused"}, "", {{"tokens", 4096}, {"heads", 48}, {"head_dim", 128}}},
        {"attention_decode",
         {"naive", "splitkv", "splitkv_mma"},
         "",
         {{"batch", 1}, {"heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"context", 8192}}},
        {"attention_prefill",
         {"naive", "flash", "flash_mma"},
         "",
         {{"batch", 1}, {"heads", 32}, {"kv_heads", 8}, {"head_dim", 128}, {"tokens", 2048}}},
        {"copy", {"kernel", "memcpy"}, "", {{"bytes", std::int64_t(1) << 30}}},
    };
    return catalog;
}

const LadderSpec* findLadder(const std::string& kernel) {
    for (const auto& spec : ladderCatalog())
        if (spec.kernel == kernel) return &spec;
    return nullptr;
}

}  // namespace ws
