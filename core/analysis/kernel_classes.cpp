#include "analysis/kernel_classes.h"

#include <algorithm>
#include <array>
#include <utility>

#include "util/text.h"

namespace ws {

namespace {

struct ClassName {
    KernelClass kind;
    const char* name;
};
constexpr std::array<ClassName, 7> kNames{{{KernelClass::Matmul, "matmul"},
                                           {KernelClass::Attention, "attention"},
                                           {KernelClass::Elementwise, "elementwise"},
                                           {KernelClass::Sampling, "sampling"},
                                           {KernelClass::Collective, "collective"},
                                           {KernelClass::Copy, "copy"},
                                           {KernelClass::Other, "other"}}};

// Tried in order: the first class with a word in the name wins. Collectives
// and attention come before matmul because NCCL and flash-attention kernels
// name GEMM-like tiles too; sampling before elementwise because a softmax
// over the vocabulary is sampling, not an activation.
const std::array<std::pair<KernelClass, std::vector<std::string_view>>, 6> kWords{{
    {KernelClass::Collective, {"nccl"}},
    {KernelClass::Attention,
     {"attention", "attn", "flash", "fmha", "mha_", "paged", "decodesplit", "decodecombine",
      "prefillmma", "prefillnaive", "unified_attention", "splitkv"}},
    {KernelClass::Sampling, {"argmax", "topk", "top_k", "topp", "top_p", "sample", "sampling"}},
    {KernelClass::Matmul,
     {"gemm", "gemv", "nvjet", "xmma", "cutlass", "cublas", "matmul", "wgmma", "_mm_", "sgemm",
      "hgemm", "splitk"}},
    {KernelClass::Copy, {"fillkernel", "fill_", "copy", "memcpy", "memset", "zero_"}},
    {KernelClass::Elementwise,
     {"norm", "rope", "rotary", "silu", "gelu", "swiglu", "relu", "elementwise", "vectorized",
      "embed", "softmax", "reduce", "add", "mul", "act_and_mul", "residual", "cat", "index",
      "advancecounters"}},
}};

}  // namespace

const char* toString(KernelClass k) {
    for (const auto& n : kNames)
        if (n.kind == k) return n.name;
    return "other";
}

std::optional<KernelClass> kernelClassFromString(std::string_view name) {
    const auto wanted = asciiLower(name);
    for (const auto& n : kNames)
        if (wanted == n.name) return n.kind;
    return std::nullopt;
}

const std::vector<std::string>& kernelClassNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const auto& n : kNames)
            out.emplace_back(n.name);
        return out;
    }();
    return names;
}

bool isGraphSpanName(std::string_view name) {
    return name.starts_with("cuda_graph_");
}

KernelClass classifyKernel(std::string_view name) {
    const auto text = asciiLower(name);
    for (const auto& [kind, words] : kWords)
        for (auto word : words)
            if (text.find(word) != std::string::npos) return kind;
    return KernelClass::Other;
}

}  // namespace ws
